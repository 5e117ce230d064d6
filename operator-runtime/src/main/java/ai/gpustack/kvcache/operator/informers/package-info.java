/**
 * What the reconcilers read the cluster through: the event sources they register ({@link
 * ai.gpustack.kvcache.operator.informers.Informers}), a {@code ClusterView} over those caches
 * ({@link ai.gpustack.kvcache.operator.informers.CacheView}), the caches one controller keeps for
 * another ({@link ai.gpustack.kvcache.operator.informers.SharedCaches}), and the cloner the caches
 * hand out copies with. Nothing here writes.
 */
package ai.gpustack.kvcache.operator.informers;
