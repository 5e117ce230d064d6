package ai.gpustack.kvcache.sandbox;

import ai.gpustack.kvcache.api.EffectiveSettings;
import ai.gpustack.kvcache.cluster.ClusterView;
import ai.gpustack.kvcache.cluster.MemoryClusterView;
import ai.gpustack.kvcache.resources.KVCacheBackend;
import ai.gpustack.kvcache.resources.KVCachePool;
import ai.gpustack.kvcache.resources.KVCachePoolBinding;
import ai.gpustack.kvcache.resources.Keys;
import ai.gpustack.kvcache.resources.ModelDeployment;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.fabric8.kubernetes.api.model.HasMetadata;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.client.utils.KubernetesSerialization;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;

/**
 * The embedded server's store, read as a {@link ClusterView} the moment a write is admitted: what a
 * real API server's webhook would see through its informers, without their lag.
 */
final class StoreClusterView implements ClusterView {
  private static final ObjectMapper JSON = new ObjectMapper();
  private static final Set<String> KINDS =
      Set.of("KVCachePoolBinding", "KVCachePool", "KVCacheBackend", "ModelDeployment", "Setting");

  private final Map<?, String> store;
  private final KubernetesSerialization serialization;
  private MemoryClusterView snapshot;

  StoreClusterView(Map<?, String> store, KubernetesSerialization serialization) {
    this.store = store;
    this.serialization = serialization;
  }

  private MemoryClusterView view() {
    if (snapshot == null) {
      List<String> values;
      synchronized (store) {
        values = new ArrayList<>(store.values());
      }
      List<HasMetadata> objects = new ArrayList<>();
      for (String value : values) {
        PARSED.computeIfAbsent(value, this::parse).ifPresent(objects::add);
      }
      snapshot = MemoryClusterView.of(objects);
    }
    return snapshot;
  }

  /**
   * Each stored object read once, not on every admitted write: the view reads every object in the
   * store, and parsing them all per write made the sandbox quadratic in its size (its CPU was most
   * of a fleet benchmark's). Keyed weakly by the stored string, so an entry goes with its version.
   */
  private static final Map<String, Optional<HasMetadata>> PARSED =
      java.util.Collections.synchronizedMap(new java.util.WeakHashMap<>());

  /** {@code value} as an object of the view, or empty for a kind the view does not hold. */
  private Optional<HasMetadata> parse(String value) {
    try {
      JsonNode node = JSON.readTree(value);
      String kind = node.path("kind").asText();
      if (KINDS.contains(kind)
          || kind.equals("Pod")
              && node.at("/metadata/labels").path(Keys.INJECT).asText().equals("true")) {
        return Optional.of(serialization.unmarshal(value));
      }
    } catch (Exception e) {
      // Another kind, or an object the handlers could not read either: not part of the view.
    }
    return Optional.empty();
  }

  @Override
  public Optional<KVCachePoolBinding> binding(String namespace, String name) {
    return view().binding(namespace, name);
  }

  @Override
  public List<KVCachePoolBinding> bindings() {
    return view().bindings();
  }

  @Override
  public Optional<KVCachePool> pool(String name) {
    return view().pool(name);
  }

  @Override
  public Optional<KVCacheBackend> backend(String name) {
    return view().backend(name);
  }

  @Override
  public List<ModelDeployment> modelDeployments(String namespace) {
    return view().modelDeployments(namespace);
  }

  @Override
  public List<Pod> injectedPods(String namespace) {
    return view().injectedPods(namespace);
  }

  @Override
  public EffectiveSettings settings() {
    return view().settings();
  }
}
