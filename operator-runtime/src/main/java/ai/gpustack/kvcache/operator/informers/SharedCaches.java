package ai.gpustack.kvcache.operator.informers;

import ai.gpustack.kvcache.resources.ModelDeployment;
import io.fabric8.kubernetes.api.model.Pod;
import io.javaoperatorsdk.operator.api.reconciler.IndexedResourceCache;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicReference;
import java.util.function.Consumer;
import java.util.stream.Stream;

/**
 * The caches one controller of the operator keeps and another reads: the ModelDeployment
 * controller's deployments, the KVCachePoolBinding controller's injected Pods. A second informer of
 * either would have every write to those objects sent by the API server, parsed and kept twice: the
 * injected Pods' two informers were a third of the operator's CPU under a stream of Pod creates.
 */
public final class SharedCaches {
  /**
   * How long a read waits for the injected Pods' first list, JOSDK's default cache sync timeout:
   * the controllers start side by side, and a deployment read before that list could take a later
   * attachment for its domain's earliest.
   */
  static final Duration SYNC_WAIT = Duration.ofMinutes(2);

  /** One informer's Pods, listed once {@link #synced} completes. */
  interface PodCache {
    CompletionStage<Void> synced();

    Stream<Pod> list(String namespace);
  }

  private final AtomicReference<IndexedResourceCache<ModelDeployment>> deployments =
      new AtomicReference<>();

  /** By the namespace an informer watches; empty for the one watching all. */
  private final Map<Optional<String>, PodCache> injectedPods = new ConcurrentHashMap<>();

  private final AtomicReference<Consumer<Pod>> injectedPodMoves = new AtomicReference<>(p -> {});

  private final Duration syncWait;

  public SharedCaches() {
    this(SYNC_WAIT);
  }

  SharedCaches(Duration syncWait) {
    this.syncWait = syncWait;
  }

  /** Called by the ModelDeployment controller as it prepares its sources. */
  public void deploymentsFrom(IndexedResourceCache<ModelDeployment> primaryCache) {
    deployments.set(primaryCache);
  }

  /** The deployments of {@code namespace} as the ModelDeployment controller's cache holds them. */
  public List<ModelDeployment> deployments(String namespace) {
    IndexedResourceCache<ModelDeployment> c = deployments.get();
    if (c == null) {
      throw new IllegalStateException(
          "the ModelDeployment controller is not registered: its cache is what this reads");
    }
    return c.list(namespace).toList();
  }

  /** Called for each informer of injected Pods the KVCachePoolBinding controller prepares. */
  void injectedPodsFrom(Optional<String> namespace, PodCache pods) {
    injectedPods.put(namespace, pods);
  }

  /**
   * The injected Pods of {@code namespace}, none when it is not watched; waits for the informer's
   * first list.
   */
  public List<Pod> injectedPods(String namespace) {
    if (injectedPods.isEmpty()) {
      throw new IllegalStateException(
          "the KVCachePoolBinding controller is not registered: its cache of injected Pods is what"
              + " this reads");
    }
    PodCache pods = injectedPods.get(Optional.empty());
    if (pods == null) {
      pods = injectedPods.get(Optional.of(namespace));
    }
    if (pods == null) {
      return List.of();
    }
    try {
      pods.synced().toCompletableFuture().get(syncWait.toMillis(), TimeUnit.MILLISECONDS);
    } catch (TimeoutException | ExecutionException e) {
      throw new IllegalStateException(
          "the injected Pods of " + namespace + " were not listed within " + syncWait, e);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new IllegalStateException("interrupted waiting for the injected Pods' list", e);
    }
    return pods.list(namespace).toList();
  }

  /** Who hears of an injected Pod's arrival or departure: the ModelDeployment controller. */
  public void onInjectedPodMoves(Consumer<Pod> listener) {
    injectedPodMoves.set(listener);
  }

  void injectedPodMoved(Pod pod) {
    injectedPodMoves.get().accept(pod);
  }
}
