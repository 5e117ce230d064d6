package ai.gpustack.kvcache.spi;

import ai.gpustack.kvcache.api.ReuseDomain;
import ai.gpustack.kvcache.api.RoleKind;
import java.util.Optional;
import org.immutables.value.Value;

/**
 * Everything an engine needs to render one attachment to a KV cache store, whichever way it reaches
 * the engine (a managed role's command, an injected Pod's args). Immutable; the dtype is the
 * domain's, rendered unless {@link #dtypeOwned()} says the Setting is off.
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
   * Whether the domain's dtype is rendered as the engine's dtype flag: true unless the Setting
   * {@code model-deployment-kv-cache-dtype-owned} is off.
   */
  @Value.Default
  public boolean dtypeOwned() {
    return true;
  }
}
