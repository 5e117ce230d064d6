package ai.gpustack.kvcache.attach;

import ai.gpustack.kvcache.api.Message;
import ai.gpustack.kvcache.api.Problem;
import ai.gpustack.kvcache.api.ProblemType;
import ai.gpustack.kvcache.api.Quoting;
import ai.gpustack.kvcache.spi.Engine;
import ai.gpustack.kvcache.spi.EngineRegistry;
import java.util.Optional;

/**
 * Why a workload cannot attach as it asks: a reason word (the operator's condition reason), the
 * field that names the Binding, the kind of field error, and the message from the catalog. The
 * webhook answers it as a denial, the operator as a condition. Immutable.
 */
public record Refusal(
    String reason, ProblemType type, String field, Optional<String> value, String message) {
  /** The engine name matches no registered engine module. */
  public static final String ENGINE_NOT_REGISTERED = "EngineNotRegistered";

  /** The Binding does not exist in the workload's namespace. */
  public static final String BINDING_NOT_FOUND = "BindingNotFound";

  /** The engine version is not in the engine's version scheme. */
  public static final String ENGINE_VERSION_UNREAD = "EngineVersionUnread";

  /** The Binding has a deletionTimestamp. */
  public static final String BINDING_DELETING = "BindingDeleting";

  /** The Binding's pool does not exist. */
  public static final String POOL_NOT_FOUND = "PoolNotFound";

  /** Neither the pool's backend nor the pool names a store endpoint. */
  public static final String ENDPOINT_NOT_PUBLISHED = "EndpointNotPublished";

  /** The Binding's stored dtype is not a dtype (empty, not lowercase, too long). */
  public static final String DTYPE_UNREADABLE = "DtypeUnreadable";

  /** The engine at its version rejects the Binding's dtype, under {@code Enforce}. */
  public static final String SPELLING_REJECTED = "SpellingRejectedByEngine";

  /**
   * The engine at its version stores the dtype in another KV format than the domain's earliest
   * attachment, under {@code Enforce}.
   */
  public static final String FORMAT_DIFFERS = "FormatDiffersInDomain";

  /**
   * Whether the refusal is about the dtype, not the store: the operator holds a deployment on its
   * last good render for these, rather than rendering it without a cache.
   */
  public boolean aboutDtype() {
    return reason.equals(DTYPE_UNREADABLE)
        || reason.equals(SPELLING_REJECTED)
        || reason.equals(FORMAT_DIFFERS);
  }

  /**
   * An engine name no module registers, at {@code field}: the same field error on every road,
   * naming the registered engines.
   */
  public static Problem engineNotRegistered(EngineRegistry engines, String field, String name) {
    return Problem.builder()
        .field(field)
        .type(ProblemType.NOT_SUPPORTED)
        .value(name)
        .detail(Message.ENGINE_UNKNOWN.detail(engines.unknown(name)))
        .reason(ENGINE_NOT_REGISTERED)
        .build();
  }

  /**
   * {@code version} at {@code field}, refused when {@code engine}'s version scheme does not read
   * it; empty when it reads or is absent.
   */
  public static Optional<Problem> engineVersionUnread(
      Engine engine, String field, Optional<String> version) {
    if (version.isEmpty() || engine.versionScheme().reads(version.get())) {
      return Optional.empty();
    }
    return Optional.of(
        Problem.builder()
            .field(field)
            .type(ProblemType.INVALID)
            .value(version.get())
            .detail(
                Message.ENGINE_VERSION_SCHEME.detail(
                    Quoting.quote(engine.id()), engine.versionScheme().description()))
            .reason(ENGINE_VERSION_UNREAD)
            .build());
  }

  /** As a field error carrying the reason. */
  public Problem problem() {
    return Problem.builder()
        .field(field)
        .type(type)
        .value(value)
        .detail(message)
        .reason(reason)
        .build();
  }
}
