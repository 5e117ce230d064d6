/**
 * What the reconcilers read the cluster through: the event sources they register ({@link
 * ai.gpustack.kvcache.operator.informers.Informers}), a {@code ClusterView} over those caches
 * ({@link ai.gpustack.kvcache.operator.informers.CacheView}), the deployments by namespace, and the
 * cloner the caches hand out copies with. Nothing here writes.
 */
package ai.gpustack.kvcache.operator.informers;
