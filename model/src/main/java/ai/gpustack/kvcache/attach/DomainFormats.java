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
import io.fabric8.kubernetes.api.model.ObjectMeta;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.stream.Collectors;

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

  /** By dtype, every format a registered engine stores it as, the model's own dtype aside. */
  private final Map<String, Set<KvFormat>> formatsAnywhere = new ConcurrentHashMap<>();

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
    if (!own.get().modelDependent() && onlyFormatAnywhere(dtype, own.get())) {
      // No registered engine at any version stores the dtype as another format: no attachment can
      // differ, so the domain's attachments need not be read (every reconcile of a large domain
      // asks, and reading them all made the operator quadratic in the domain's size).
      return new Finding(Optional.empty(), List.of());
    }
    List<Candidate> candidates = others(binding, self, cluster, dtype);
    if (!own.get().modelDependent()
        && candidates.stream()
            .allMatch(c -> c.format().modelDependent() || c.format() == own.get())) {
      // Every attachment that names a format names ours: no earliest to find (the common case,
      // and the one every reconcile of a large domain asks).
      return new Finding(Optional.empty(), List.of());
    }
    Member mine = new Member(self, engine, version, own.get());
    List<Member> members = earliestFirst(candidates, mine);
    if (own.get().modelDependent()) {
      return modelDependent(binding, dtype, members);
    }
    Optional<Member> first = members.stream().filter(m -> !m.format().modelDependent()).findFirst();
    if (first.isEmpty() || first.get().format() == own.get()) {
      return new Finding(Optional.empty(), List.of());
    }
    return differs(binding, dtype, mine, first.get(), members);
  }

  /** Every attachment, {@code mine} among them, earliest first. */
  private static List<Member> earliestFirst(List<Candidate> candidates, Member mine) {
    List<Member> members = new ArrayList<>();
    candidates.forEach(c -> members.add(c.member()));
    members.add(mine);
    members.sort(EARLIEST);
    return members;
  }

  /** A model-dependent format cannot be compared: a warning naming who resolves it so. */
  private static Finding modelDependent(
      KVCachePoolBinding binding, String dtype, List<Member> members) {
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

  /** The conflict: {@code mine} stores another format than the domain's earliest, {@code first}. */
  private static Finding differs(
      KVCachePoolBinding binding, String dtype, Member mine, Member first, List<Member> members) {
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
                mine.format().id(),
                first.format().id(),
                first.workload().display(),
                String.join(", ", listed),
                quote(dtype),
                first.format().id())),
        List.of());
  }

  /**
   * Whether every registered engine, at every version its table covers, stores {@code dtype} as
   * {@code format} or as the model's own dtype, or does not map it.
   */
  private boolean onlyFormatAnywhere(String dtype, KvFormat format) {
    return formatsAnywhere
        .computeIfAbsent(
            dtype,
            d ->
                engines.engines().stream()
                    .flatMap(e -> e.dtypeSpellings().entries().stream())
                    .flatMap(entry -> entry.format(d).stream())
                    .filter(f -> !f.modelDependent())
                    .collect(Collectors.toUnmodifiableSet()))
        .stream()
        .allMatch(format::equals);
  }

  /**
   * Another attachment, its format already known: its workload (and with it the creation time,
   * which takes parsing) is built only when the domain's earliest is needed.
   */
  private record Candidate(
      String kind, ObjectMeta meta, Engine engine, Optional<String> version, KvFormat format) {
    Member member() {
      return new Member(Workload.stored(kind, meta), engine, version, format);
    }
  }

  /** The other attachments through {@code binding} whose engine maps the dtype to a format. */
  private List<Candidate> others(
      KVCachePoolBinding binding, Workload self, ClusterView cluster, String dtype) {
    String namespace = binding.getMetadata().getNamespace();
    String name = binding.getMetadata().getName();
    // Engines and versions repeat across a domain's attachments: resolve each pair once.
    Map<List<Object>, Optional<KvFormat>> formats = new HashMap<>();
    List<Candidate> out = new ArrayList<>();
    for (ModelDeployment md : cluster.modelDeployments(namespace)) {
      if (!md.attachesThrough(name)) {
        continue;
      }
      candidate(
              Workload.MODEL_DEPLOYMENT,
              md.getMetadata(),
              md.getSpec().engine().name(),
              md.getSpec().engine().version(),
              dtype,
              self,
              formats)
          .ifPresent(out::add);
    }
    cluster.injectedPods(namespace).stream()
        .filter(p -> Pods.annotation(p, Keys.BINDING).filter(name::equals).isPresent())
        .filter(Pods::injectionRecorded)
        .forEach(
            p ->
                Pods.annotation(p, Keys.ENGINE)
                    .flatMap(
                        e ->
                            candidate(
                                Workload.POD,
                                p.getMetadata(),
                                e,
                                Pods.annotation(p, Keys.ENGINE_VERSION),
                                dtype,
                                self,
                                formats))
                    .ifPresent(out::add));
    return out;
  }

  private Optional<Candidate> candidate(
      String kind,
      ObjectMeta meta,
      String engineName,
      Optional<String> version,
      String dtype,
      Workload self,
      Map<List<Object>, Optional<KvFormat>> formats) {
    if (kind.equals(self.kind()) && meta.getName().equals(self.name())) {
      return Optional.empty();
    }
    Optional<Engine> engine = engines.find(engineName);
    if (engine.isEmpty()) {
      return Optional.empty();
    }
    Optional<KvFormat> format =
        formats.computeIfAbsent(
            List.of(engine.get().id(), version), k -> engine.get().kvFormat(dtype, version));
    return format.map(f -> new Candidate(kind, meta, engine.get(), version, f));
  }
}
