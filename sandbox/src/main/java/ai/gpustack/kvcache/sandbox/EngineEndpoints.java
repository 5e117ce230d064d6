package ai.gpustack.kvcache.sandbox;

import ai.gpustack.kvcache.observe.DtypeObserver;
import ai.gpustack.kvcache.resources.Keys;
import ai.gpustack.kvcache.resources.ModelDeployment;
import ai.gpustack.kvcache.resources.Pods;
import ai.gpustack.kvcache.spi.DtypeReport;
import ai.gpustack.kvcache.spi.Engine;
import ai.gpustack.kvcache.spi.EngineRegistry;
import ai.gpustack.kvcache.spi.FlagReader;
import io.fabric8.kubernetes.api.model.Pod;
import java.util.List;
import java.util.Optional;
import java.util.function.Function;

/**
 * What the sandbox's replicas answer on their engine's port, since no engine runs: the engine's
 * dtype report, shaped like the real engine's, carrying the dtype the engine would run given the
 * Pod's argv (the last occurrence its parser reads; {@code auto} when none). Reached through the
 * Pod proxy, as {@code kvcache verify} and the operator read real replicas.
 */
final class EngineEndpoints {
  /** An answer: the HTTP status and its body. */
  record Answer(int code, String body) {}

  private final EngineRegistry engines;
  private final Function<Pod, Optional<ModelDeployment>> owner;

  /** {@code owner} finds the deployment a managed replica belongs to. */
  EngineEndpoints(EngineRegistry engines, Function<Pod, Optional<ModelDeployment>> owner) {
    this.engines = engines;
    this.owner = owner;
  }

  Answer get(Pod pod, int port, String path) {
    Optional<ModelDeployment> md = owner.apply(pod);
    Optional<String> engineName =
        md.map(m -> m.getSpec().engine().name()).or(() -> Pods.annotation(pod, Keys.ENGINE));
    Optional<String> version =
        md.isPresent()
            ? md.get().getSpec().engine().version()
            : Pods.annotation(pod, Keys.ENGINE_VERSION);
    Optional<Engine> engine = engineName.flatMap(engines::find);
    if (engine.isEmpty()) {
      return refused(pod, port);
    }
    List<String> argv = DtypeObserver.argv(pod);
    FlagReader reader = engine.get().flagReader(version);
    if (port != DtypeObserver.listenPort(engine.get(), reader, argv)) {
      return refused(pod, port);
    }
    Optional<DtypeReport> report =
        engine.get().dtypeReport(version).filter(r -> r.path().equals(path));
    if (report.isEmpty()) {
      return new Answer(404, "404 page not found\n");
    }
    String dtype = reader.lastValue(argv, engine.get().dtypeFlag()).orElse("auto");
    return new Answer(200, report.get().sample(dtype));
  }

  /** What the API server's proxy answers when nothing listens on the port. */
  private static Answer refused(Pod pod, int port) {
    return new Answer(
        503,
        "error trying to reach service: dial tcp "
            + Optional.ofNullable(pod.getStatus()).map(s -> s.getPodIP()).orElse("10.0.0.1")
            + ":"
            + port
            + ": connect: connection refused");
  }
}
