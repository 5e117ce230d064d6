package ai.gpustack.kvcache.spi;

import ai.gpustack.kvcache.api.Dtype;
import ai.gpustack.kvcache.api.ReuseDomain;
import ai.gpustack.kvcache.api.RoleKind;
import java.util.Optional;
import org.immutables.value.Value;

/** Everything an engine needs to render one attachment to a KV cache store. */
@Value.Immutable
abstract class AttachmentRequestDef {
  public abstract Vehicle vehicle();

  @Value.Default
  public RoleKind roleKind() {
    return RoleKind.Server;
  }

  /** {@code host:port} of the store's master, from the pool's status. */
  public abstract String clientEndpoint();

  public abstract ReuseDomain domain();

  /** The tenant id to pass the store client; absent on a master without tenant ledgers. */
  public abstract Optional<String> tenant();

  /**
   * The Binding's dtype, present while the dtype is owned; rendered verbatim as the engine's dtype
   * flag.
   */
  public abstract Optional<Dtype> dtype();

  /** The engine version, which selects the flag inventory; the newest when absent. */
  public abstract Optional<String> engineVersion();
}
