package ai.gpustack.kvcache.operator.e2e;

import org.junit.jupiter.api.extension.ExtensionContext;
import org.junit.jupiter.api.extension.ParameterContext;
import org.junit.jupiter.api.extension.ParameterResolver;

/**
 * Hands a test the run's {@link ControlPlane} or its {@link Installation}, started on first use and
 * stopped when the run ends: {@code @ExtendWith(RealCluster.class)}, then a {@code ControlPlane} or
 * {@code Installation} parameter (a static {@code @BeforeAll} method's too).
 */
public final class RealCluster implements ParameterResolver {
  @Override
  public boolean supportsParameter(ParameterContext parameter, ExtensionContext context) {
    Class<?> type = parameter.getParameter().getType();
    return type == ControlPlane.class || type == Installation.class;
  }

  @Override
  public Object resolveParameter(ParameterContext parameter, ExtensionContext context) {
    return parameter.getParameter().getType() == ControlPlane.class
        ? ControlPlane.shared(context)
        : Installation.shared(context);
  }
}
