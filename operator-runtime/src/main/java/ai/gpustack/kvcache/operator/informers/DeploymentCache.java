package ai.gpustack.kvcache.operator.informers;

import ai.gpustack.kvcache.resources.ModelDeployment;
import io.javaoperatorsdk.operator.api.reconciler.IndexedResourceCache;
import java.util.List;
import java.util.concurrent.atomic.AtomicReference;

/**
 * The ModelDeployment controller's cache of every deployment, read by the other controllers of the
 * same operator. A second informer of the kind would have each write to a deployment (its status
 * moves several times per rollout) sent by the API server, parsed and kept twice.
 */
public final class DeploymentCache {
  private final AtomicReference<IndexedResourceCache<ModelDeployment>> cache =
      new AtomicReference<>();

  /** Called by the ModelDeployment controller as it prepares its sources. */
  public void from(IndexedResourceCache<ModelDeployment> primaryCache) {
    cache.set(primaryCache);
  }

  /** The deployments of {@code namespace} as the ModelDeployment controller's cache holds them. */
  public List<ModelDeployment> in(String namespace) {
    IndexedResourceCache<ModelDeployment> c = cache.get();
    if (c == null) {
      throw new IllegalStateException(
          "the ModelDeployment controller is not registered: its cache is what this reads");
    }
    return c.list(namespace).toList();
  }
}
