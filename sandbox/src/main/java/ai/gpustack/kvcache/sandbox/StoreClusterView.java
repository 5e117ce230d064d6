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
        try {
          JsonNode node = JSON.readTree(value);
          String kind = node.path("kind").asText();
          if (KINDS.contains(kind)
              || kind.equals("Pod")
                  && node.at("/metadata/labels").path(Keys.INJECT).asText().equals("true")) {
            objects.add(serialization.unmarshal(value));
          }
        } catch (Exception e) {
          // Another kind, or an object the handlers could not read either: not part of the view.
        }
      }
      snapshot = MemoryClusterView.of(objects);
    }
    return snapshot;
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
