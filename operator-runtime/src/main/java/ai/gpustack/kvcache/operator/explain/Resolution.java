package ai.gpustack.kvcache.operator.explain;

import ai.gpustack.kvcache.attach.Attachment;
import ai.gpustack.kvcache.attach.AttachmentResolver;
import ai.gpustack.kvcache.attach.BindingRef;
import ai.gpustack.kvcache.attach.Refusal;
import ai.gpustack.kvcache.attach.Workload;
import ai.gpustack.kvcache.cluster.MemoryClusterView;
import ai.gpustack.kvcache.operator.explain.Explanation.AttachmentPath;
import ai.gpustack.kvcache.operator.explain.Explanation.Domain;
import ai.gpustack.kvcache.operator.explain.Explanation.Endpoint;
import ai.gpustack.kvcache.operator.explain.Explanation.EngineChoice;
import ai.gpustack.kvcache.operator.explain.Explanation.EngineModule;
import ai.gpustack.kvcache.operator.explain.Explanation.Format;
import ai.gpustack.kvcache.operator.explain.Explanation.PoolPath;
import ai.gpustack.kvcache.operator.explain.Explanation.Refused;
import ai.gpustack.kvcache.operator.explain.Explanation.Verdict;
import ai.gpustack.kvcache.spi.Engine;
import ai.gpustack.kvcache.spi.EngineRegistry;
import java.util.Optional;

/**
 * A workload's engine and Binding reference, resolved as the webhook and the operator resolve them
 * (the Settings in force included), into the values an explanation shows.
 */
final class Resolution {
  private final EngineRegistry engines;
  private final MemoryClusterView cluster;

  Resolution(EngineRegistry engines, MemoryClusterView cluster) {
    this.engines = engines;
    this.cluster = cluster;
  }

  private Attachment resolve(
      BindingRef ref, Workload self, Engine engine, Optional<String> version) {
    return new AttachmentResolver(engines)
        .resolve(ref, self, engine, version, cluster.settings(), cluster);
  }

  Verdict verdict(
      BindingRef ref, Workload self, Optional<Engine> engine, Optional<String> version) {
    if (engine.isEmpty()) {
      return new Verdict(false, Optional.empty(), "", Optional.empty());
    }
    Attachment a = resolve(ref, self, engine.get(), version);
    return new Verdict(
        true,
        a.refusal().map(Refusal::reason),
        a.dtype().outcome().name(),
        engine.get().kvFormat(a.dtype().dtype(), version).map(Object::toString));
  }

  EngineChoice engineChoice(
      String field, String name, Optional<String> version, Optional<Engine> engine) {
    return new EngineChoice(
        field,
        name,
        version,
        engine.map(
            e ->
                new EngineModule(
                    e.id(),
                    String.valueOf(e.artifact()),
                    String.valueOf(e.dtypeSpellings().forVersion(version).basis()))),
        engines.engines().stream().map(Engine::id).toList());
  }

  AttachmentPath attachment(
      BindingRef ref, Workload self, Engine engine, Optional<String> version) {
    Attachment a = resolve(ref, self, engine, version);
    String dtype = a.dtype().dtype();
    return new AttachmentPath(
        a.ref().field(),
        a.ref().namespace(),
        a.ref().name(),
        a.binding()
            .map(
                b ->
                    new Domain(
                        b.getSpec().domain().name(),
                        b.getSpec().domain().blockSize(),
                        b.getSpec().domain().dtype())),
        a.pool()
            .map(
                p ->
                    new PoolPath(
                        p.getMetadata().getName(),
                        a.backend().map(b -> b.getMetadata().getName()))),
        a.endpoint().map(e -> new Endpoint(e, a.backend().isPresent(), a.tenant())),
        a.dtype().outcome().name(),
        a.dtype().message(),
        dtype.isEmpty()
            ? Optional.empty()
            : engine
                .kvFormat(dtype, version)
                .map(f -> new Format(engine.id(), dtype, f.toString(), f.description())),
        a.warnings(),
        a.refusal().map(r -> new Refused(r.field(), r.reason(), r.message())),
        a.refusal()
            .filter(r -> r.reason().equals(Refusal.SPELLING_REJECTED))
            .flatMap(r -> sameFormat(dtype, engine, version)));
  }

  /**
   * A spelling {@code engine} accepts for the format another registered engine stores {@code dtype}
   * as: {@code bfloat16} for SGLang's {@code bf16} on vLLM.
   */
  private Optional<String> sameFormat(String dtype, Engine engine, Optional<String> version) {
    return engines.engines().stream()
        .flatMap(e -> e.kvFormat(dtype, Optional.empty()).stream())
        .findFirst()
        .flatMap(
            format ->
                engine.dtypeSpellings().forVersion(version).entry().stream()
                    .flatMap(entry -> entry.spellings().stream())
                    .filter(s -> engine.kvFormat(s, version).equals(Optional.of(format)))
                    .sorted()
                    .findFirst());
  }
}
