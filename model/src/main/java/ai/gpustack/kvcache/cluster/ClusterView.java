package ai.gpustack.kvcache.cluster;

import ai.gpustack.kvcache.api.EffectiveSettings;
import ai.gpustack.kvcache.resources.KVCacheBackend;
import ai.gpustack.kvcache.resources.KVCachePool;
import ai.gpustack.kvcache.resources.KVCachePoolBinding;
import ai.gpustack.kvcache.resources.ModelDeployment;
import io.fabric8.kubernetes.api.model.Pod;
import java.util.List;
import java.util.Optional;

/**
 * The cluster state the rules read, read-only. The webhook backs it with informers, tests with
 * memory, the CLI with manifest files. Implementations are thread-safe.
 */
public interface ClusterView {
  Optional<KVCachePoolBinding> binding(String namespace, String name);

  /** Every Binding in every namespace. */
  List<KVCachePoolBinding> bindings();

  Optional<KVCachePool> pool(String name);

  Optional<KVCacheBackend> backend(String name);

  /** The deployments of one namespace. */
  List<ModelDeployment> modelDeployments(String namespace);

  /**
   * The Pods of one namespace that ask for injection (label {@code kvcache.gpustack.ai/inject:
   * "true"}): with the deployments, what attaches to a Binding's domain.
   */
  List<Pod> injectedPods(String namespace);

  /** The Settings in force, read with their rules. */
  EffectiveSettings settings();

  /**
   * Why this view cannot vouch for the cluster as it is now, when it cannot: a cache that has not
   * heard from the API server for too long ({@code "has not heard from the API server for 45 s"}).
   * Empty for a view that is current; a snapshot is what it is.
   */
  default java.util.Optional<String> staleness() {
    return java.util.Optional.empty();
  }

  /**
   * Whether a read may wait on something outside the process without asking {@link
   * MemoryOnly#check()} first: such a view is never read on an event loop. Views held in memory,
   * and views that ask, say no.
   */
  default boolean mayBlock() {
    return true;
  }
}
