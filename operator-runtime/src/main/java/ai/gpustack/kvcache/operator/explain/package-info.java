/**
 * {@code kvcache explain}: why an object gets the KV-cache dtype it gets. {@link Explainer} reads a
 * cluster view into an {@link Explanation} (the resolver's path, the Settings, every owned flag,
 * the render and each replica's report), changing nothing; {@link ExplanationText} prints it for a
 * person.
 */
package ai.gpustack.kvcache.operator.explain;
