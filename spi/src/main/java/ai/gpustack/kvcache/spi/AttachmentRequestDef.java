package ai.gpustack.kvcache.spi;

import ai.gpustack.kvcache.api.Dtype;
import ai.gpustack.kvcache.api.ReuseDomain;
import ai.gpustack.kvcache.api.RoleKind;
import java.util.Optional;
import org.immutables.value.Value;

/**
 * Everything an engine needs to render one attachment to a KV cache store, whichever way it reaches
 * the engine (a managed role's command, an injected Pod's args). Immutable; the dtype is the
 * domain's, rendered exactly when {@link #dtype()} is present.
 */
@Value.Immutable
abstract class AttachmentRequestDef {
  /** The role kind, which picks the connector's role; {@code Server} for an injected Pod. */
  @Value.Default
  public RoleKind roleKind() {
    return RoleKind.Server;
  }

  /**
   * The engine version the attachment is rendered for ({@code spec.engine.version}, the Pod's
   * {@code kvcache.gpustack.ai/engine-version}); absent means the newest the module knows. A module
   * whose connector or defaulted flags arrived in a release renders them only from that release.
   */
  public abstract Optional<String> engineVersion();

  /** {@code host:port} of the store's master. */
  public abstract String clientEndpoint();

  /** The reuse domain; its {@code dtype} is handed to the engine verbatim. */
  public abstract ReuseDomain domain();

  /** The tenant id to pass the store client; absent on a master without tenant ledgers. */
  public abstract Optional<String> tenant();

  /**
   * The dtype handed to the engine as its dtype flag, validated: present exactly when it is
   * rendered, and then the domain's. The domain's unless given: the reference operator and webhook
   * give it empty while the Setting {@code model-deployment-kv-cache-dtype-owned} is off or the
   * dtype does not read.
   */
  @Value.Default
  @SuppressWarnings("immutables:untype") // the builder takes the Optional itself: empty is meant
  public Optional<Dtype> dtype() {
    return Optional.of(Dtype.of(domain().dtype()));
  }

  /**
   * Whether a dtype is rendered.
   *
   * @deprecated read {@link #dtype()}; kept for engine modules written against 0.1, removed in the
   *     next release
   */
  @Deprecated(forRemoval = true)
  public boolean dtypeOwned() {
    return dtype().isPresent();
  }

  @Value.Check
  void check() {
    dtype()
        .filter(d -> !d.value().equals(domain().dtype()))
        .ifPresent(
            d -> {
              throw new IllegalArgumentException(
                  "the rendered dtype " + d.value() + " is not the domain's " + domain().dtype());
            });
  }
}
