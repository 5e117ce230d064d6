package ai.gpustack.kvcache.attach;

import ai.gpustack.kvcache.api.Dtype;
import java.util.Optional;

/**
 * What the dtype rule makes of a Binding's dtype for one engine at one version, given the Settings:
 * whether the dtype is rendered, and the reason and message the operator's {@code DtypeAccepted}
 * condition carries. Immutable.
 */
public record DtypeRuling(Outcome outcome, String dtype, Optional<Dtype> read, String message) {
  public DtypeRuling {
    if (outcome.renders && read.isEmpty()) {
      throw new IllegalArgumentException(outcome + " renders the dtype, so it must have read it");
    }
  }

  /** A ruling on a dtype that does not read, or is not looked at: never rendered. */
  public DtypeRuling(Outcome outcome, String dtype, String message) {
    this(outcome, dtype, Optional.empty(), message);
  }

  /** The rulings, each with its condition reason. */
  public enum Outcome {
    /** The store is not attached, so no dtype is rendered. */
    UNRESOLVED("NotApplicable", false),
    /** {@code model-deployment-kv-cache-dtype-owned} is off: nothing is rendered or refused. */
    NOT_OWNED("NotOwned", false),
    /** {@code kv-cache-dtype-spelling-check} is {@code Off}: rendered without asking the engine. */
    UNCHECKED("CheckDisabled", true),
    /** The engine's spelling table at its version lists the dtype. */
    ACCEPTED("Accepted", true),
    /** The engine rejects it, but the check is {@code Warn}: rendered, with a warning. */
    UNVERIFIED("SpellingUnverified", true),
    /** The engine rejects it under {@code Enforce}: refused. */
    REJECTED(Refusal.SPELLING_REJECTED, true),
    /** Accepted, but stored in another format than the domain's, under {@code Enforce}: refused. */
    FORMAT_DIFFERS(Refusal.FORMAT_DIFFERS, true),
    /** Accepted, but stored in another format than the domain's, under {@code Warn}: warned. */
    FORMAT_UNVERIFIED("FormatUnverified", true),
    /** The stored dtype is not a dtype: refused. */
    UNREADABLE(Refusal.DTYPE_UNREADABLE, false);

    private final String reason;
    private final boolean renders;

    Outcome(String reason, boolean renders) {
      this.reason = reason;
      this.renders = renders;
    }

    /** The condition reason. */
    public String reason() {
      return reason;
    }
  }

  /**
   * Whether the dtype goes on the engine's command line when the attachment is rendered (a refused
   * one is rendered only where the operator keeps the deployment on its last good render anyway).
   */
  public boolean renders() {
    return outcome.renders;
  }

  /**
   * The validated dtype the engine is handed, present exactly when it is rendered: the one dtype
   * carrier from the ruling to the engine's flag.
   */
  public Optional<Dtype> rendered() {
    return renders() ? read : Optional.empty();
  }

  /** Whether the {@code DtypeAccepted} condition reads True. */
  public boolean accepted() {
    return switch (outcome) {
      case UNVERIFIED, REJECTED, UNREADABLE, FORMAT_DIFFERS, FORMAT_UNVERIFIED -> false;
      default -> true;
    };
  }
}
