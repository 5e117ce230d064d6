package ai.gpustack.kvcache.cluster;

import ai.gpustack.kvcache.api.EffectiveSettings;
import ai.gpustack.kvcache.resources.KVCacheBackend;
import ai.gpustack.kvcache.resources.KVCachePool;
import ai.gpustack.kvcache.resources.KVCachePoolBinding;
import ai.gpustack.kvcache.resources.ModelDeployment;
import ai.gpustack.kvcache.resources.Setting;
import io.fabric8.kubernetes.api.model.HasMetadata;
import io.fabric8.kubernetes.api.model.Pod;
import java.util.Collection;
import java.util.List;
import java.util.Optional;

/**
 * A view over caches another operator already keeps (the Java Operator SDK's informer event
 * sources, fabric8 {@code SharedIndexInformer} stores): it opens no informers and holds no state,
 * asking the caches for one kind at each read. Thread-safe when the caches are.
 */
public final class CachedClusterView implements ClusterView {
  /**
   * The objects of {@code kind} the caller's caches hold: {@link KVCachePoolBinding}, {@link
   * KVCachePool}, {@link KVCacheBackend}, {@link ModelDeployment}, {@link Pod} and {@link Setting}
   * (in {@code gpustack-system}). An empty collection for a kind not cached reads as none; missing
   * Settings read as their defaults. Answered from memory, without waiting: a webhook may ask on
   * its event loop.
   */
  @FunctionalInterface
  public interface Caches {
    Collection<? extends HasMetadata> list(Class<? extends HasMetadata> kind);
  }

  private final Caches caches;

  private CachedClusterView(Caches caches) {
    this.caches = caches;
  }

  /** A view reading {@code caches} at every call. */
  public static CachedClusterView over(Caches caches) {
    return new CachedClusterView(caches);
  }

  private MemoryClusterView of(Class<? extends HasMetadata> kind) {
    return MemoryClusterView.of(caches.list(kind));
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

  /** {@link Caches} answer from memory. */
  @Override
  public boolean mayBlock() {
    return false;
  }
}
