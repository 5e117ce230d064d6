package ai.gpustack.kvcache.attach;

/**
 * Where a workload names the Binding it attaches through: the workload's namespace, the Binding's
 * name, and the field that holds the name, which a refusal points at ({@code
 * spec.kvCache.poolRef.name}, {@code metadata.annotations[kvcache.gpustack.ai/binding]}).
 */
public record BindingRef(String namespace, String name, String field) {}
