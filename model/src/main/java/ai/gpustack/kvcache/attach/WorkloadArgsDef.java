package ai.gpustack.kvcache.attach;

import ai.gpustack.kvcache.api.EffectiveSettings;
import ai.gpustack.kvcache.api.ReuseDomain;
import ai.gpustack.kvcache.api.RoleKind;
import java.util.List;
import java.util.Optional;
import org.immutables.value.Value;

/**
 * One workload's container as {@link KvCacheArgs} renders and checks it, in plain values: which
 * engine at which version, the reuse domain it attaches (whose {@code dtype} is the only dtype
 * given), the store endpoint and tenant, and the workload's own args with the field path they live
 * at in the caller's resource. Immutable; strict builder.
 */
@Value.Immutable
abstract class WorkloadArgsDef {
  /** The engine id, matched case-insensitively ({@code vLLM}, {@code sglang}). */
  public abstract String engine();

  /**
   * The engine version, selecting its spelling table and flag inventory; the newest when absent.
   */
  public abstract Optional<String> engineVersion();

  /** The model a managed container serves; required by {@link KvCacheArgs#managedCommand}. */
  public abstract Optional<String> model();

  /** The reuse domain attached; its {@code dtype} is handed to the engine. */
  public abstract ReuseDomain domain();

  /** {@code host:port} of the store's master. */
  public abstract String clientEndpoint();

  /** The tenant the store client passes; absent on a master without tenant ledgers. */
  public abstract Optional<String> tenant();

  /** The role kind, which picks the connector's role. */
  @Value.Default
  public RoleKind roleKind() {
    return RoleKind.Server;
  }

  /**
   * The container's {@code command} as it stands, for {@link KvCacheArgs#injectedArgs}: flags there
   * are checked and counted as named, but nothing is added to it.
   */
  public abstract List<String> command();

  /**
   * The workload's own args: extra args after the rendered ones for a managed container, the
   * container's {@code args} for an injected one.
   */
  public abstract List<String> args();

  /** Where {@link #args()} lives in the caller's resource: {@code spec.template.args}. */
  @Value.Default
  public String argsPath() {
    return "args";
  }

  /** Where the engine is named in the caller's resource. */
  @Value.Default
  public String enginePath() {
    return "engine";
  }

  /** Where {@link #engineVersion()} is written in the caller's resource. */
  @Value.Default
  public String engineVersionPath() {
    return "engineVersion";
  }

  /** Where the attachment, and with it the dtype, is named in the caller's resource. */
  @Value.Default
  public String dtypePath() {
    return "dtype";
  }

  /** Where {@link #command()} lives in the caller's resource. */
  @Value.Default
  public String commandPath() {
    return "command";
  }

  /**
   * Who declares the dtype, as refusals name it: {@code KVCachePoolBinding "cache"}, {@code
   * InferenceService "chat" spec.kvCache}.
   */
  @Value.Default
  public String dtypeSource() {
    return "the workload's KV cache binding";
  }

  /** The serving port of a managed container; the engine's default when absent. */
  public abstract Optional<Integer> port();

  /** The Settings in force: the dtype owned and the spelling check enforced unless given. */
  @Value.Default
  public EffectiveSettings settings() {
    return EffectiveSettings.DEFAULTS;
  }
}
