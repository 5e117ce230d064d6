/**
 * The cluster state the rules read, read-only: a {@link ai.gpustack.kvcache.cluster.ClusterView}
 * that the webhook backs with informers, the operator with its own caches, the sandbox with its
 * store and the offline tools with manifest files ({@link ai.gpustack.kvcache.cluster.Manifests}).
 */
package ai.gpustack.kvcache.cluster;
