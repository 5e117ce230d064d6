package ai.gpustack.kvcache.cluster;

import ai.gpustack.kvcache.api.EffectiveSettings;
import ai.gpustack.kvcache.api.Settings;
import ai.gpustack.kvcache.resources.KVCacheBackend;
import ai.gpustack.kvcache.resources.KVCachePool;
import ai.gpustack.kvcache.resources.KVCachePoolBinding;
import ai.gpustack.kvcache.resources.ModelDeployment;
import ai.gpustack.kvcache.resources.Pods;
import ai.gpustack.kvcache.resources.Setting;
import io.fabric8.kubernetes.api.model.HasMetadata;
import io.fabric8.kubernetes.api.model.Pod;
import java.util.Collection;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;

/**
 * A fixed snapshot of cluster state: for tests, and for {@code kvcache review -f} over manifest
 * files. Objects of other kinds are ignored; missing Settings read as their defaults.
 */
public final class MemoryClusterView implements ClusterView {
  private final List<KVCachePoolBinding> bindings;
  private final List<KVCachePool> pools;
  private final List<KVCacheBackend> backends;
  private final List<ModelDeployment> deployments;
  private final List<Pod> injectedPods;
  private final Map<String, String> rawSettings;
  private final EffectiveSettings settings;

  private MemoryClusterView(
      List<KVCachePoolBinding> bindings,
      List<KVCachePool> pools,
      List<KVCacheBackend> backends,
      List<ModelDeployment> deployments,
      List<Pod> injectedPods,
      Map<String, String> rawSettings) {
    this.bindings = bindings;
    this.pools = pools;
    this.backends = backends;
    this.deployments = deployments;
    this.injectedPods = injectedPods;
    this.rawSettings = Map.copyOf(rawSettings);
    this.settings = Settings.effective(rawSettings);
  }

  /** The same objects, with Setting {@code name} reading {@code value}, as if it were stored. */
  public MemoryClusterView withSetting(String name, String value) {
    Map<String, String> raw = new HashMap<>(rawSettings);
    raw.put(name, value);
    return new MemoryClusterView(bindings, pools, backends, deployments, injectedPods, raw);
  }

  /** A view of {@code objects}. */
  public static MemoryClusterView of(Collection<? extends HasMetadata> objects) {
    return new MemoryClusterView(
        only(objects, KVCachePoolBinding.class),
        only(objects, KVCachePool.class),
        only(objects, KVCacheBackend.class),
        only(objects, ModelDeployment.class),
        only(objects, Pod.class).stream().filter(Pods::injectionRequested).toList(),
        Setting.values(only(objects, Setting.class).stream()));
  }

  /** A view of {@code objects}. */
  public static MemoryClusterView of(HasMetadata... objects) {
    return of(List.of(objects));
  }

  private static <T> List<T> only(Collection<? extends HasMetadata> objects, Class<T> type) {
    return objects.stream().filter(type::isInstance).map(type::cast).toList();
  }

  @Override
  public Optional<KVCachePoolBinding> binding(String namespace, String name) {
    return bindings.stream()
        .filter(b -> Objects.equals(b.getMetadata().getNamespace(), namespace))
        .filter(b -> b.getMetadata().getName().equals(name))
        .findFirst();
  }

  @Override
  public List<KVCachePoolBinding> bindings() {
    return bindings;
  }

  @Override
  public Optional<KVCachePool> pool(String name) {
    return pools.stream().filter(p -> p.getMetadata().getName().equals(name)).findFirst();
  }

  @Override
  public Optional<KVCacheBackend> backend(String name) {
    return backends.stream().filter(b -> b.getMetadata().getName().equals(name)).findFirst();
  }

  @Override
  public List<ModelDeployment> modelDeployments(String namespace) {
    return deployments.stream()
        .filter(d -> Objects.equals(d.getMetadata().getNamespace(), namespace))
        .toList();
  }

  @Override
  public List<Pod> injectedPods(String namespace) {
    return injectedPods.stream()
        .filter(p -> Objects.equals(p.getMetadata().getNamespace(), namespace))
        .toList();
  }

  @Override
  public EffectiveSettings settings() {
    return settings;
  }

  /** Every read is in memory. */
  @Override
  public boolean mayBlock() {
    return false;
  }
}
