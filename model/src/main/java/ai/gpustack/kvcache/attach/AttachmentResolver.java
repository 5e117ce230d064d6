package ai.gpustack.kvcache.attach;

import static ai.gpustack.kvcache.api.Quoting.quote;

import ai.gpustack.kvcache.api.Dtype;
import ai.gpustack.kvcache.api.EffectiveSettings;
import ai.gpustack.kvcache.api.ExternalConnection;
import ai.gpustack.kvcache.api.Message;
import ai.gpustack.kvcache.api.ProblemType;
import ai.gpustack.kvcache.api.ProblemsException;
import ai.gpustack.kvcache.api.SpellingCheck;
import ai.gpustack.kvcache.attach.DtypeRuling.Outcome;
import ai.gpustack.kvcache.cluster.ClusterView;
import ai.gpustack.kvcache.resources.KVCacheBackend;
import ai.gpustack.kvcache.resources.KVCachePool;
import ai.gpustack.kvcache.resources.KVCachePoolBinding;
import ai.gpustack.kvcache.spi.DtypeVerdict;
import ai.gpustack.kvcache.spi.Engine;
import ai.gpustack.kvcache.spi.EngineRegistry;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.function.UnaryOperator;

/**
 * Resolves Binding → pool → backend → endpoint, tenant and the dtype's ruling, in that order,
 * stopping at the first refusal. Pure and thread-safe.
 *
 * <p>The endpoint is the backend's declared {@code spec.connection.external.clientEndpoint}, and
 * the pool's published {@code status.clientEndpoint} only when the backend cannot be read: the
 * backend is what the master is, while the pool's status is an echo the operator writes after it,
 * which lags a change and is absent from manifests.
 */
public final class AttachmentResolver {
  private final EngineRegistry engines;
  private final DomainFormats formats;

  /**
   * {@code engines} words a rejected spelling with what every registered engine accepts, and
   * resolves the formats of the domain's other attachments.
   */
  public AttachmentResolver(EngineRegistry engines) {
    this.engines = engines;
    this.formats = new DomainFormats(engines);
  }

  /**
   * What {@code ref} attaches {@code self}, running {@code engine} at {@code version}, to under
   * {@code settings}.
   */
  public Attachment resolve(
      BindingRef ref,
      Workload self,
      Engine engine,
      Optional<String> version,
      EffectiveSettings settings,
      ClusterView cluster) {
    Optional<KVCachePoolBinding> found =
        cluster.binding(ref.namespace(), ref.name()).filter(b -> b.getSpec() != null);
    if (found.isEmpty()) {
      return bindingNotFound(ref, version);
    }
    KVCachePoolBinding binding = found.get();
    if (binding.getMetadata().getDeletionTimestamp() != null) {
      return bindingDeleting(ref, version, found);
    }
    String poolName = binding.getSpec().poolRef().name();
    Optional<KVCachePool> pool = cluster.pool(poolName).filter(p -> p.getSpec() != null);
    if (pool.isEmpty()) {
      return poolNotFound(ref, version, found, pool, poolName);
    }
    Optional<String> backendName = pool.get().getSpec().backends().stream().findFirst();
    Optional<KVCacheBackend> backend =
        backendName.flatMap(cluster::backend).filter(b -> b.getSpec() != null);
    Optional<String> endpoint = endpoint(pool.get(), backend);
    if (endpoint.isEmpty()) {
      return noEndpoint(ref, version, found, pool, backend, poolName, backendName);
    }
    boolean tenants = backend.map(b -> b.getSpec().multiTenancy()).orElse(true);
    Optional<String> tenant =
        tenants ? Optional.of(binding.getSpec().domain().name()) : Optional.empty();
    List<String> warnings = new ArrayList<>();
    DtypeRuling ruling =
        withDomainFormats(
            rule(ref, binding, engine, version, settings),
            binding,
            self,
            engine,
            version,
            settings,
            cluster,
            warnings);
    Optional<Refusal> refusal = dtypeRefusal(ref, ruling, warnings);
    return new Attachment(
        ref, version, found, pool, backend, endpoint, tenant, ruling, refusal, warnings);
  }

  private static Attachment bindingNotFound(BindingRef ref, Optional<String> version) {
    return refused(
        ref,
        version,
        Optional.empty(),
        Optional.empty(),
        Optional.empty(),
        refusal(
            ref,
            Refusal.BINDING_NOT_FOUND,
            ProblemType.NOT_FOUND,
            Message.ATTACH_BINDING_NOT_FOUND.detail(quote(ref.name()), quote(ref.namespace()))));
  }

  private static Attachment bindingDeleting(
      BindingRef ref, Optional<String> version, Optional<KVCachePoolBinding> found) {
    return refused(
        ref,
        version,
        found,
        Optional.empty(),
        Optional.empty(),
        new Refusal(
            Refusal.BINDING_DELETING,
            ProblemType.FORBIDDEN,
            ref.field(),
            Optional.empty(),
            Message.ATTACH_BINDING_DELETING.detail(quote(ref.name()))));
  }

  private static Attachment poolNotFound(
      BindingRef ref,
      Optional<String> version,
      Optional<KVCachePoolBinding> found,
      Optional<KVCachePool> pool,
      String poolName) {
    return refused(
        ref,
        version,
        found,
        pool,
        Optional.empty(),
        refusal(
            ref,
            Refusal.POOL_NOT_FOUND,
            ProblemType.NOT_FOUND,
            Message.ATTACH_POOL_NOT_FOUND.detail(quote(poolName), quote(ref.name()))));
  }

  /** The backend's declared endpoint; the pool's published echo only when the backend is unread. */
  private static Optional<String> endpoint(KVCachePool pool, Optional<KVCacheBackend> backend) {
    return backend
        .flatMap(b -> b.getSpec().connection().external())
        .map(ExternalConnection::clientEndpoint)
        .or(() -> pool.getStatus() == null ? Optional.empty() : pool.getStatus().clientEndpoint());
  }

  private static Attachment noEndpoint(
      BindingRef ref,
      Optional<String> version,
      Optional<KVCachePoolBinding> found,
      Optional<KVCachePool> pool,
      Optional<KVCacheBackend> backend,
      String poolName,
      Optional<String> backendName) {
    String why =
        backend.isEmpty()
            ? "does not exist"
            : "declares no spec.connection.external.clientEndpoint";
    return refused(
        ref,
        version,
        found,
        pool,
        backend,
        refusal(
            ref,
            Refusal.ENDPOINT_NOT_PUBLISHED,
            ProblemType.INVALID,
            Message.ATTACH_NO_ENDPOINT.detail(
                quote(poolName), quote(backendName.orElse("")), why)));
  }

  /**
   * An accepted ruling checked against the formats of the domain's other attachments: a conflict
   * makes it differ (unverified under {@code Warn}). The check's warnings go to {@code warnings}.
   */
  private DtypeRuling withDomainFormats(
      DtypeRuling ruling,
      KVCachePoolBinding binding,
      Workload self,
      Engine engine,
      Optional<String> version,
      EffectiveSettings settings,
      ClusterView cluster,
      List<String> warnings) {
    if (ruling.outcome() != Outcome.ACCEPTED) {
      return ruling;
    }
    DomainFormats.Finding finding = formats.check(binding, self, engine, version, cluster);
    warnings.addAll(finding.warnings());
    if (finding.conflict().isEmpty()) {
      return ruling;
    }
    return new DtypeRuling(
        settings.spellingCheck() == SpellingCheck.Warn
            ? Outcome.FORMAT_UNVERIFIED
            : Outcome.FORMAT_DIFFERS,
        ruling.dtype(),
        ruling.read(),
        finding.conflict().get());
  }

  /** The ruling's refusal, if it refuses; an unverified ruling adds its message to warnings. */
  private static Optional<Refusal> dtypeRefusal(
      BindingRef ref, DtypeRuling ruling, List<String> warnings) {
    switch (ruling.outcome()) {
      case UNREADABLE, REJECTED, FORMAT_DIFFERS -> {
        return Optional.of(
            new Refusal(
                ruling.outcome().reason(),
                ProblemType.INVALID,
                ref.field(),
                Optional.of(ref.name()),
                ruling.message()));
      }
      case UNVERIFIED, FORMAT_UNVERIFIED -> warnings.add(ruling.message());
      default -> {}
    }
    return Optional.empty();
  }

  private static Refusal refusal(BindingRef ref, String reason, ProblemType type, String message) {
    return new Refusal(reason, type, ref.field(), Optional.of(ref.name()), message);
  }

  private static Attachment refused(
      BindingRef ref,
      Optional<String> version,
      Optional<KVCachePoolBinding> binding,
      Optional<KVCachePool> pool,
      Optional<KVCacheBackend> backend,
      Refusal refusal) {
    return new Attachment(
        ref,
        version,
        binding,
        pool,
        backend,
        Optional.empty(),
        Optional.empty(),
        new DtypeRuling(
            Outcome.UNRESOLVED,
            binding.map(b -> b.getSpec().domain().dtype()).orElse(""),
            "no dtype is rendered: the cache is not attached"),
        Optional.of(refusal),
        List.of());
  }

  private DtypeRuling rule(
      BindingRef ref,
      KVCachePoolBinding binding,
      Engine engine,
      Optional<String> version,
      EffectiveSettings settings) {
    String dtype = binding.getSpec().domain().dtype();
    return rule(
        "KVCachePoolBinding " + quote(ref.name()),
        dtype,
        engine,
        version,
        settings,
        why -> Message.ATTACH_DTYPE_UNREADABLE.detail(quote(ref.name()), quote(dtype), why));
  }

  /**
   * The ruling on {@code dtype} declared by {@code subject} ({@code KVCachePoolBinding "cache"}):
   * not owned; unreadable (worded by {@code unreadable} from why it does not read); unchecked,
   * accepted, or rejected (unverified under {@code Warn}). A rendered ruling keeps the validated
   * dtype. The format check of the domain is the resolver's, not part of this.
   */
  DtypeRuling rule(
      String subject,
      String dtype,
      Engine engine,
      Optional<String> version,
      EffectiveSettings settings,
      UnaryOperator<String> unreadable) {
    if (!settings.kvCacheDtypeOwned()) {
      return new DtypeRuling(
          Outcome.NOT_OWNED,
          dtype,
          "model-deployment-kv-cache-dtype-owned is off: no dtype is rendered");
    }
    Optional<Dtype> read;
    try {
      read = Optional.of(Dtype.of(dtype));
    } catch (ProblemsException e) {
      String why = e.problems().isEmpty() ? e.getMessage() : e.problems().get(0).detail();
      return new DtypeRuling(Outcome.UNREADABLE, dtype, unreadable.apply(why));
    }
    if (settings.spellingCheck() == SpellingCheck.Off) {
      return new DtypeRuling(
          Outcome.UNCHECKED,
          dtype,
          read,
          "kv-cache-dtype-spelling-check is Off: " + quote(dtype) + " is passed unchecked");
    }
    if (engine.acceptsDtype(dtype, version)) {
      return new DtypeRuling(
          Outcome.ACCEPTED,
          dtype,
          read,
          "engine "
              + quote(engine.id())
              + " accepts "
              + quote(dtype)
              + " (table "
              + engine.dtypeSpellings().forVersion(version).basis()
              + ")");
    }
    DtypeVerdict verdict = engine.checkDtype(dtype, version);
    String rejected =
        Message.DTYPE_REJECTED_BY_ENGINE.detail(
            subject,
            quote(dtype),
            quote(engine.id()),
            version.map(v -> " " + v).orElse(""),
            verdict.table() + verdict.source().map(s -> ", read from " + s).orElse(""),
            engine.id(),
            verdict.spellings().isEmpty()
                ? "nothing at that version"
                : String.join(" ", verdict.spellings()),
            String.join(" ", engines.acceptedByEveryRegisteredEngine()));
    return new DtypeRuling(
        settings.spellingCheck() == SpellingCheck.Warn ? Outcome.UNVERIFIED : Outcome.REJECTED,
        dtype,
        read,
        rejected);
  }
}
