package ai.gpustack.kvcache.cluster;

import ai.gpustack.kvcache.api.EffectiveSettings;
import ai.gpustack.kvcache.api.Settings;
import ai.gpustack.kvcache.resources.KVCacheBackend;
import ai.gpustack.kvcache.resources.KVCachePool;
import ai.gpustack.kvcache.resources.KVCachePoolBinding;
import ai.gpustack.kvcache.resources.Keys;
import ai.gpustack.kvcache.resources.ModelDeployment;
import ai.gpustack.kvcache.resources.Setting;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.informers.SharedIndexInformer;
import io.fabric8.kubernetes.client.informers.cache.Cache;
import java.util.List;
import java.util.Optional;

/** A {@link ClusterView} over informers: reads never leave the process. */
public final class InformerClusterView implements ClusterView, AutoCloseable {
  private final SharedIndexInformer<KVCachePoolBinding> bindings;
  private final SharedIndexInformer<KVCachePool> pools;
  private final SharedIndexInformer<KVCacheBackend> backends;
  private final SharedIndexInformer<ModelDeployment> deployments;
  private final SharedIndexInformer<Setting> settings;
  private final SharedIndexInformer<Pod> injectedPods;

  private InformerClusterView(KubernetesClient client) {
    this.bindings = client.resources(KVCachePoolBinding.class).inAnyNamespace().inform();
    this.pools = client.resources(KVCachePool.class).inform();
    this.backends = client.resources(KVCacheBackend.class).inform();
    this.deployments = client.resources(ModelDeployment.class).inAnyNamespace().inform();
    this.settings = client.resources(Setting.class).inNamespace(Settings.NAMESPACE).inform();
    // Only Pods asking for injection: every other Pod stays out of the webhook's memory.
    this.injectedPods = client.pods().inAnyNamespace().withLabel(Keys.INJECT, "true").inform();
  }

  /** Starts the informers; {@link #synced()} turns true once each has listed. */
  public static InformerClusterView start(KubernetesClient client) {
    return new InformerClusterView(client);
  }

  public boolean synced() {
    return List.of(bindings, pools, backends, deployments, settings, injectedPods).stream()
        .allMatch(SharedIndexInformer::hasSynced);
  }

  @Override
  public Optional<KVCachePoolBinding> binding(String namespace, String name) {
    return Optional.ofNullable(
        bindings.getStore().getByKey(Cache.namespaceKeyFunc(namespace, name)));
  }

  @Override
  public List<KVCachePoolBinding> bindings() {
    return bindings.getStore().list();
  }

  @Override
  public Optional<KVCachePool> pool(String name) {
    return Optional.ofNullable(pools.getStore().getByKey(name));
  }

  @Override
  public Optional<KVCacheBackend> backend(String name) {
    return Optional.ofNullable(backends.getStore().getByKey(name));
  }

  @Override
  public List<ModelDeployment> modelDeployments(String namespace) {
    return deployments.getStore().list().stream()
        .filter(d -> namespace.equals(d.getMetadata().getNamespace()))
        .toList();
  }

  @Override
  public List<Pod> injectedPods(String namespace) {
    return injectedPods.getStore().list().stream()
        .filter(p -> namespace.equals(p.getMetadata().getNamespace()))
        .toList();
  }

  @Override
  public EffectiveSettings settings() {
    return Settings.effective(Setting.values(settings.getStore().list().stream()));
  }

  @Override
  public void close() {
    List.of(bindings, pools, backends, deployments, settings, injectedPods)
        .forEach(SharedIndexInformer::close);
  }
}
