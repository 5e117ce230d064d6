package ai.gpustack.kvcache.observe;

import java.util.Optional;

/**
 * One replica as {@code kvcache verify} prints it: where it runs, who owns it, the Binding's dtype,
 * the dtype its argv hands the engine (the last occurrence the engine reads; empty when the argv
 * passes none and the engine runs its default), what the engine reports (empty when nothing), where
 * that was read, and the verdict. {@code reached} tells an engine that answered without a dtype
 * from one that could not be reached.
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
    boolean reached) {}
