package ai.gpustack.kvcache.admission;

import static ai.gpustack.kvcache.api.Quoting.quote;

import ai.gpustack.kvcache.api.Dtype;
import ai.gpustack.kvcache.api.KVCachePoolBindingSpec;
import ai.gpustack.kvcache.api.Message;
import ai.gpustack.kvcache.api.ModelDeploymentSpec;
import ai.gpustack.kvcache.api.Problems;
import ai.gpustack.kvcache.cluster.ClusterView;
import ai.gpustack.kvcache.resources.KVCachePool;
import ai.gpustack.kvcache.resources.KVCachePoolBinding;
import ai.gpustack.kvcache.resources.ModelDeployment;
import ai.gpustack.kvcache.resources.Quantities;
import ai.gpustack.kvcache.spi.DtypeVerdict;
import ai.gpustack.kvcache.spi.Engine;
import ai.gpustack.kvcache.spi.EngineRegistry;
import java.math.BigDecimal;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import java.util.Optional;
import java.util.stream.Collectors;

/** KVCachePoolBinding admission: shape, the auto rule, immutability, the domain claim, quota. */
final class BindingRule implements Rule {
  private final EngineRegistry engines;
  private final ClusterView cluster;
  private final ObjectReader reader;

  BindingRule(EngineRegistry engines, ClusterView cluster, ObjectReader reader) {
    this.engines = engines;
    this.cluster = cluster;
    this.reader = reader;
  }

  @Override
  public Decision decide(Request request) {
    KVCachePoolBinding binding = reader.read(request.object(), KVCachePoolBinding.class);
    Problems problems = Problems.create();
    KVCachePoolBindingSpec spec = binding.getSpec();
    if (spec == null) {
      problems.required("spec", "a Binding names its pool, its reuse domain and its quota");
      return Decision.of(request.subject(), problems, List.of());
    }
    String namespace = namespace(binding, request);
    if (request.isCreate()) {
      create(request, binding, namespace, spec, problems);
    } else {
      update(request, namespace, spec, problems);
    }
    List<String> warnings = problems.isEmpty() ? warnings(namespace, binding) : List.of();
    return Decision.of(request.subject(), problems, warnings);
  }

  /** A new Binding: its shape and dtype, then (when those hold) its pool, claim and ceiling. */
  private void create(
      Request request,
      KVCachePoolBinding binding,
      String namespace,
      KVCachePoolBindingSpec spec,
      Problems problems) {
    shape(spec, problems);
    dtype(spec.domain().dtype(), problems);
    if (!problems.isEmpty()) {
      return;
    }
    Optional<KVCachePool> pool = cluster.pool(spec.poolRef().name());
    if (pool.isEmpty()) {
      poolNotFound(spec, problems);
      return;
    }
    // A review's object may come without metadata; the request still names it.
    String name =
        binding.getMetadata() == null || binding.getMetadata().getName() == null
            ? request.name()
            : binding.getMetadata().getName();
    claim(namespace, name, spec, pool.get(), problems);
    ceiling(namespace, name, spec, pool.get(), problems);
  }

  /** The dtype an owned Binding may declare: neither {@code auto} nor one left to the model. */
  private void dtype(String dtype, Problems problems) {
    boolean owned = cluster.settings().kvCacheDtypeOwned();
    if (owned && Dtype.AUTO.equals(dtype)) {
      problems.invalid("spec.domain.dtype", Dtype.AUTO, Message.BINDING_DTYPE_AUTO.detail());
    } else if (owned && dtype != null) {
      List<String> modelDtype = engines.leavingModelDtype(dtype);
      if (!modelDtype.isEmpty()) {
        problems.invalid(
            "spec.domain.dtype",
            dtype,
            Message.BINDING_DTYPE_MODEL_DTYPE.detail(quote(dtype), String.join(", ", modelDtype)));
      }
    }
  }

  /** A changed Binding: what is immutable stays, and a moved ceiling still fits its pool. */
  private void update(
      Request request, String namespace, KVCachePoolBindingSpec spec, Problems problems) {
    KVCachePoolBinding old = reader.read(request.oldObject(), KVCachePoolBinding.class);
    KVCachePoolBindingSpec before = old.getSpec();
    if (before == null) {
      return;
    }
    immutable(before, spec, problems);
    if (!before.equals(spec)) {
      shape(spec, problems);
    }
    if (problems.isEmpty() && ceilingMoved(before, spec)) {
      cluster
          .pool(spec.poolRef().name())
          .ifPresentOrElse(
              pool -> ceiling(namespace, request.name(), spec, pool, problems),
              () -> poolNotFound(spec, problems));
    }
  }

  private static void poolNotFound(KVCachePoolBindingSpec spec, Problems problems) {
    problems.notFound(
        "spec.poolRef.name",
        spec.poolRef().name(),
        Message.BINDING_POOL_NOT_FOUND.detail(quote(spec.poolRef().name())));
  }

  static String namespace(KVCachePoolBinding binding, Request request) {
    String ns = binding.getMetadata() == null ? null : binding.getMetadata().getNamespace();
    return ns == null || ns.isEmpty() ? request.namespace() : ns;
  }

  private static void shape(KVCachePoolBindingSpec spec, Problems problems) {
    if (spec.poolRef().name().isBlank()) {
      problems.required("spec.poolRef.name", "the KVCachePool this Binding draws on");
    }
    spec.domain().validate("spec.domain", problems);
    if (!Quantities.positive(spec.quota().ceiling())) {
      problems.invalid(
          "spec.quota.ceiling", spec.quota().ceiling(), Message.QUANTITY_NOT_POSITIVE.detail());
    }
  }

  private static void immutable(
      KVCachePoolBindingSpec before, KVCachePoolBindingSpec after, Problems problems) {
    if (!before.poolRef().name().equals(after.poolRef().name())) {
      problems.forbidden("spec.poolRef.name", Message.BINDING_POOL_IMMUTABLE.detail());
    }
    if (!before.domain().name().equals(after.domain().name())) {
      problems.forbidden("spec.domain.name", Message.BINDING_DOMAIN_NAME_IMMUTABLE.detail());
    }
    if (before.domain().blockSize() != after.domain().blockSize()) {
      problems.forbidden("spec.domain.blockSize", Message.BINDING_BLOCK_SIZE_IMMUTABLE.detail());
    }
    if (!before.domain().dtype().equals(after.domain().dtype())) {
      problems.forbidden("spec.domain.dtype", Message.BINDING_DTYPE_IMMUTABLE.detail());
    }
  }

  private static boolean ceilingMoved(KVCachePoolBindingSpec before, KVCachePoolBindingSpec after) {
    Optional<BigDecimal> a = Quantities.amount(before.quota().ceiling());
    Optional<BigDecimal> b = Quantities.amount(after.quota().ceiling());
    if (a.isPresent() && b.isPresent()) {
      return a.get().compareTo(b.get()) != 0;
    }
    return !before.quota().ceiling().equals(after.quota().ceiling());
  }

  /**
   * One domain name per backend: another Binding on a pool of the same backend holding it refuses.
   */
  private void claim(
      String namespace,
      String name,
      KVCachePoolBindingSpec spec,
      KVCachePool pool,
      Problems problems) {
    if (pool.getSpec() == null || pool.getSpec().backends().isEmpty()) {
      return;
    }
    String backend = pool.getSpec().backends().get(0);
    for (KVCachePoolBinding other : cluster.bindings()) {
      if (Objects.equals(other.getMetadata().getNamespace(), namespace)
          && other.getMetadata().getName().equals(name)) {
        continue;
      }
      if (other.getSpec() == null
          || !other.getSpec().domain().name().equals(spec.domain().name())) {
        continue;
      }
      boolean shared =
          cluster
              .pool(other.getSpec().poolRef().name())
              .map(p -> p.getSpec() != null && p.getSpec().backends().contains(backend))
              .orElse(false);
      if (shared) {
        problems.duplicate(
            "spec.domain.name",
            spec.domain().name(),
            Message.BINDING_DOMAIN_CLAIMED.detail(
                quote(spec.domain().name()),
                Objects.equals(other.getMetadata().getNamespace(), namespace)
                    ? "KVCachePoolBinding "
                        + other.getMetadata().getNamespace()
                        + "/"
                        + other.getMetadata().getName()
                    : "a KVCachePoolBinding in another namespace",
                backend,
                quote(spec.domain().name())));
        return;
      }
    }
  }

  /**
   * The ceiling fits the pool: on its own, and with the ceilings of the pool's other Bindings
   * (those being deleted still hold their share until they are gone).
   */
  private void ceiling(
      String namespace,
      String name,
      KVCachePoolBindingSpec spec,
      KVCachePool pool,
      Problems problems) {
    if (pool.getSpec() == null) {
      return;
    }
    String total = pool.getSpec().quota().total();
    Optional<BigDecimal> limit = Quantities.amount(total);
    Optional<BigDecimal> asked = Quantities.amount(spec.quota().ceiling());
    if (limit.isEmpty() || asked.isEmpty()) {
      return;
    }
    if (asked.get().compareTo(limit.get()) > 0) {
      problems.invalid(
          "spec.quota.ceiling",
          spec.quota().ceiling(),
          Message.BINDING_CEILING_OVER_POOL.detail(total, quote(pool.getMetadata().getName())));
      return;
    }
    BigDecimal others =
        cluster.bindings().stream()
            .filter(b -> b.getSpec() != null)
            .filter(b -> b.getSpec().poolRef().name().equals(pool.getMetadata().getName()))
            .filter(
                b ->
                    !(Objects.equals(b.getMetadata().getNamespace(), namespace)
                        && Objects.equals(b.getMetadata().getName(), name)))
            .map(b -> Quantities.amount(b.getSpec().quota().ceiling()).orElse(BigDecimal.ZERO))
            .reduce(BigDecimal.ZERO, BigDecimal::add);
    BigDecimal sum = others.add(asked.get());
    if (sum.compareTo(limit.get()) > 0) {
      problems.invalid(
          "spec.quota.ceiling",
          spec.quota().ceiling(),
          Message.BINDING_CEILINGS_OVER_POOL.detail(
              quote(pool.getMetadata().getName()),
              Quantities.format(sum),
              total,
              Quantities.format(others)));
    }
  }

  private List<String> warnings(String namespace, KVCachePoolBinding binding) {
    List<String> warnings = new ArrayList<>();
    String dtype = binding.getSpec().domain().dtype();
    String all = String.join(" ", engines.acceptedByEveryRegisteredEngine());
    if (!engines.isEmpty() && !engines.anyAccepts(dtype)) {
      warnings.add(
          Message.BINDING_DTYPE_UNKNOWN_WARNING.detail(
              quote(dtype),
              engines.engines().stream().map(Engine::id).collect(Collectors.joining(", ")),
              all));
    }
    List<String> rejecting = new ArrayList<>();
    String name = binding.getMetadata() == null ? null : binding.getMetadata().getName();
    for (ModelDeployment md : cluster.modelDeployments(namespace)) {
      if (name == null || !md.attachesThrough(name)) {
        continue;
      }
      ModelDeploymentSpec spec = md.getSpec();
      Optional<Engine> engine = engines.find(spec.engine().name());
      if (engine.isPresent()) {
        DtypeVerdict verdict = engine.get().checkDtype(dtype, spec.engine().version());
        if (!verdict.accepted()) {
          rejecting.add(
              "ModelDeployment " + md.getMetadata().getName() + " on " + engine.get().id());
        }
      }
    }
    if (!rejecting.isEmpty()) {
      warnings.add(
          Message.BINDING_DTYPE_ATTACHED_WARNING.detail(
              quote(dtype), String.join(", ", rejecting), all));
    }
    return warnings;
  }
}
