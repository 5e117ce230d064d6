package ai.gpustack.kvcache.observe;

import java.util.Optional;

/**
 * One replica as {@code kvcache verify} prints it: where it runs, who owns it, the Binding's dtype,
 * the dtype its argv hands the engine (the last occurrence the engine reads; empty when the argv
 * passes none and the engine runs its default), what the engine reports (empty when nothing), where
 * that was read, and the verdict against the Binding (as if the dtype is owned: the Setting is the
 * caller's to apply, with {@link #unowned()}). {@code reached} tells an engine that answered
 * without a dtype from one that could not be reached.
 */
public record Observation(
    String namespace,
    String pod,
    String owner,
    String engine,
    String binding,
    String bindingDtype,
    Optional<String> argvDtype,
    Optional<String> observedDtype,
    String source,
    Verdict verdict,
    boolean reached) {
  /**
   * As reported while {@code model-deployment-kv-cache-dtype-owned} is off: what the engine runs is
   * kept, the verdict is {@link Verdict#NOT_OWNED}.
   */
  public Observation unowned() {
    return new Observation(
        namespace,
        pod,
        owner,
        engine,
        binding,
        bindingDtype,
        argvDtype,
        observedDtype,
        source,
        Verdict.NOT_OWNED,
        reached);
  }
}
