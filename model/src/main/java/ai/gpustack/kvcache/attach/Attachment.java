package ai.gpustack.kvcache.attach;

import ai.gpustack.kvcache.api.KvCacheStatus;
import ai.gpustack.kvcache.api.RoleKind;
import ai.gpustack.kvcache.resources.KVCacheBackend;
import ai.gpustack.kvcache.resources.KVCachePool;
import ai.gpustack.kvcache.resources.KVCachePoolBinding;
import ai.gpustack.kvcache.spi.AttachmentRequest;
import java.util.List;
import java.util.Optional;

/**
 * What one workload's Binding reference resolves to, for the engine version it runs: the Binding,
 * pool and backend found, the store endpoint and tenant, the dtype's ruling, the warnings to give,
 * and the one refusal that stops the attachment, if any. Immutable; built by {@link
 * AttachmentResolver}.
 */
public record Attachment(
    BindingRef ref,
    Optional<String> engineVersion,
    Optional<KVCachePoolBinding> binding,
    Optional<KVCachePool> pool,
    Optional<KVCacheBackend> backend,
    Optional<String> endpoint,
    Optional<String> tenant,
    DtypeRuling dtype,
    Optional<Refusal> refusal,
    List<String> warnings) {
  public Attachment {
    warnings = List.copyOf(warnings);
  }

  /** Whether nothing stops the attachment. */
  public boolean attaches() {
    return refusal.isEmpty();
  }

  /**
   * What the engine renders for a role of {@code kind}: present once the store resolved (endpoint
   * found), even when the dtype is refused, since the operator keeps such a deployment's desired
   * Pods to hold its rollout on.
   */
  public Optional<AttachmentRequest> request(RoleKind kind) {
    if (endpoint.isEmpty() || binding.isEmpty()) {
      return Optional.empty();
    }
    return Optional.of(
        AttachmentRequest.builder()
            .roleKind(kind)
            .engineVersion(engineVersion)
            .clientEndpoint(endpoint.get())
            .domain(binding.get().getSpec().domain())
            .tenant(tenant)
            .dtype(dtype.rendered())
            .build());
  }

  /** The deployment's {@code status.kvCache}: the Binding, its pool and its domain, once found. */
  public Optional<KvCacheStatus> status() {
    return binding.map(
        b ->
            KvCacheStatus.builder()
                .binding(b.getMetadata().getName())
                .pool(b.getSpec().poolRef().name())
                .domain(b.getSpec().domain())
                .build());
  }
}
