package ai.gpustack.kvcache.sandbox;

import ai.gpustack.kvcache.api.EffectiveSettings;
import ai.gpustack.kvcache.cluster.ClusterView;
import ai.gpustack.kvcache.cluster.MemoryClusterView;
import ai.gpustack.kvcache.resources.KVCacheBackend;
import ai.gpustack.kvcache.resources.KVCachePool;
import ai.gpustack.kvcache.resources.KVCachePoolBinding;
import ai.gpustack.kvcache.resources.ModelDeployment;
import ai.gpustack.kvcache.resources.Setting;
import io.fabric8.kubernetes.api.model.HasMetadata;
import io.fabric8.kubernetes.api.model.Pod;
import java.util.List;
import java.util.Optional;

/**
 * The embedded server's store, read as a {@link ClusterView} the moment a write is admitted: what a
 * real API server's webhook would see through its informers, without their lag. Each question reads
 * only the kind it is about, from the objects {@link Store#viewed} parses once.
 */
final class StoreClusterView implements ClusterView {
  private final Store store;

  StoreClusterView(Store store) {
    this.store = store;
  }

  private MemoryClusterView of(Class<? extends HasMetadata> kind) {
    return MemoryClusterView.of(store.viewed(kind));
  }

  @Override
  public Optional<KVCachePoolBinding> binding(String namespace, String name) {
    return of(KVCachePoolBinding.class).binding(namespace, name);
  }

  @Override
  public List<KVCachePoolBinding> bindings() {
    return of(KVCachePoolBinding.class).bindings();
  }

  @Override
  public Optional<KVCachePool> pool(String name) {
    return of(KVCachePool.class).pool(name);
  }

  @Override
  public Optional<KVCacheBackend> backend(String name) {
    return of(KVCacheBackend.class).backend(name);
  }

  @Override
  public List<ModelDeployment> modelDeployments(String namespace) {
    return of(ModelDeployment.class).modelDeployments(namespace);
  }

  @Override
  public List<Pod> injectedPods(String namespace) {
    return of(Pod.class).injectedPods(namespace);
  }

  @Override
  public EffectiveSettings settings() {
    return of(Setting.class).settings();
  }
}
