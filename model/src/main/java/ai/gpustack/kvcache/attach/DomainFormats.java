package ai.gpustack.kvcache.attach;

import static ai.gpustack.kvcache.api.Quoting.quote;

import ai.gpustack.kvcache.api.KvFormat;
import ai.gpustack.kvcache.api.Message;
import ai.gpustack.kvcache.cluster.ClusterView;
import ai.gpustack.kvcache.resources.KVCachePoolBinding;
import ai.gpustack.kvcache.resources.Keys;
import ai.gpustack.kvcache.resources.ModelDeployment;
import ai.gpustack.kvcache.resources.Pods;
import ai.gpustack.kvcache.spi.Engine;
import ai.gpustack.kvcache.spi.EngineRegistry;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/**
 * The one-format rule of a reuse domain: every workload attached through a Binding (its namespace's
 * ModelDeployments naming it and the Pods injected through it) resolves the Binding's dtype through
 * its own engine and version, and all must store one KV format. The domain's format is its earliest
 * attachment's (creation time, then kind and name). Pure.
 */
final class DomainFormats {
  /** One attachment with the format its engine stores the dtype as. */
  record Member(Workload workload, Engine engine, Optional<String> version, KvFormat format) {
    String engineAtVersion() {
      return engine.id() + version.map(v -> " " + v).orElse("");
    }
  }

  /** What the rule says of one workload: a conflict (to refuse or warn) and warnings. */
  record Finding(Optional<String> conflict, List<String> warnings) {}

  private static final Comparator<Member> EARLIEST =
      Comparator.comparing(
              (Member m) -> m.workload().created().orElse(Instant.MAX), Comparator.naturalOrder())
          .thenComparing(m -> m.workload().kind())
          .thenComparing(m -> m.workload().name());

  private final EngineRegistry engines;

  DomainFormats(EngineRegistry engines) {
    this.engines = engines;
  }

  /** What the rule says of {@code self}, attaching {@code engine} at {@code version}. */
  Finding check(
      KVCachePoolBinding binding,
      Workload self,
      Engine engine,
      Optional<String> version,
      ClusterView cluster) {
    String dtype = binding.getSpec().domain().dtype();
    Optional<KvFormat> own = engine.kvFormat(dtype, version);
    if (own.isEmpty()) {
      return new Finding(
          Optional.empty(),
          List.of(
              Message.FORMAT_UNMAPPED.detail(
                  quote(engine.id()) + version.map(v -> " " + v).orElse(""), quote(dtype))));
    }
    Member mine = new Member(self, engine, version, own.get());
    List<Member> members = new ArrayList<>(others(binding, self, cluster, dtype));
    members.add(mine);
    members.sort(EARLIEST);
    if (own.get().modelDependent()) {
      List<String> resolvers =
          members.stream()
              .filter(m -> m.format().modelDependent())
              .map(Member::engineAtVersion)
              .distinct()
              .toList();
      return new Finding(
          Optional.empty(),
          List.of(
              Message.FORMAT_MODEL_DEPENDENT.detail(
                  quote(binding.getMetadata().getName()),
                  quote(dtype),
                  String.join(", ", resolvers))));
    }
    Optional<Member> first = members.stream().filter(m -> !m.format().modelDependent()).findFirst();
    if (first.isEmpty() || first.get().format() == own.get()) {
      return new Finding(Optional.empty(), List.of());
    }
    Map<String, KvFormat> byEngine = new LinkedHashMap<>();
    members.stream()
        .filter(m -> !m.format().modelDependent())
        .forEach(m -> byEngine.putIfAbsent(m.engineAtVersion(), m.format()));
    List<String> listed = new ArrayList<>();
    byEngine.forEach((e, f) -> listed.add(e + " stores " + f.id()));
    return new Finding(
        Optional.of(
            Message.FORMAT_DIFFERS_IN_DOMAIN.detail(
                quote(binding.getMetadata().getName()),
                quote(binding.getSpec().domain().name()),
                quote(dtype),
                mine.engineAtVersion(),
                own.get().id(),
                first.get().format().id(),
                first.get().workload().display(),
                String.join(", ", listed),
                quote(dtype),
                first.get().format().id())),
        List.of());
  }

  /** The other attachments through {@code binding} whose engine maps the dtype to a format. */
  private List<Member> others(
      KVCachePoolBinding binding, Workload self, ClusterView cluster, String dtype) {
    String namespace = binding.getMetadata().getNamespace();
    String name = binding.getMetadata().getName();
    List<Member> out = new ArrayList<>();
    for (ModelDeployment md : cluster.modelDeployments(namespace)) {
      if (!md.attachesThrough(name)) {
        continue;
      }
      Workload w = Workload.stored(Workload.MODEL_DEPLOYMENT, md.getMetadata());
      member(w, md.getSpec().engine().name(), md.getSpec().engine().version(), dtype, self)
          .ifPresent(out::add);
    }
    cluster.injectedPods(namespace).stream()
        .filter(p -> Pods.annotation(p, Keys.BINDING).filter(name::equals).isPresent())
        .filter(p -> Pods.annotation(p, Keys.INJECTED).isPresent())
        .forEach(
            p ->
                Pods.annotation(p, Keys.ENGINE)
                    .flatMap(
                        e ->
                            member(
                                Workload.stored(Workload.POD, p.getMetadata()),
                                e,
                                Pods.annotation(p, Keys.ENGINE_VERSION),
                                dtype,
                                self))
                    .ifPresent(out::add));
    return out;
  }

  private Optional<Member> member(
      Workload w, String engineName, Optional<String> version, String dtype, Workload self) {
    if (w.kind().equals(self.kind()) && w.name().equals(self.name())) {
      return Optional.empty();
    }
    return engines
        .find(engineName)
        .flatMap(e -> e.kvFormat(dtype, version).map(f -> new Member(w, e, version, f)));
  }
}
