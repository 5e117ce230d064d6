package ai.gpustack.kvcache.spi;

import ai.gpustack.kvcache.api.EnvVar;
import java.util.List;
import java.util.Optional;
import org.immutables.value.Value;

/**
 * The engine-specific pieces of one attachment; the order they land in argv is the SPI's, not the
 * engine's (see {@link Engine#renderCommand} and {@link Engine#renderInjectedArgs}).
 */
@Value.Immutable
abstract class CacheAttachmentDef {
  /** The connector's arguments, always rendered (owned keys). */
  public abstract List<String> connectorArgs();

  /** Arguments rendered unless the argv already names their flag (the user wins). */
  public abstract List<ArgGroup> defaultedArgs();

  /** Environment written over whatever the container declares (owned keys). */
  public abstract List<EnvVar> env();

  /** Environment added only where the container does not declare the name. */
  public abstract List<EnvVar> defaultedEnv();

  public abstract Optional<ClientConfigFile> clientConfig();
}
