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
import io.fabric8.kubernetes.client.KubernetesClientException;
import io.fabric8.kubernetes.client.informers.SharedIndexInformer;
import io.fabric8.kubernetes.client.informers.cache.Cache;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Optional;
import java.util.Set;
import java.util.function.Supplier;
import java.util.stream.Collectors;
import java.util.stream.Stream;

/**
 * A {@link ClusterView} over informers: reads stay in the process, but for an object the cache does
 * not hold, which is read once from the API server before it is called missing. A watch delivers a
 * new object some milliseconds after its create answers, so a pool and a Binding naming it, applied
 * in one {@code kubectl apply}, would otherwise see the Binding refused for a pool that exists
 * (found on the real API server; the sandbox's view is synchronous).
 */
public final class InformerClusterView implements ClusterView, AutoCloseable {
  private final SharedIndexInformer<KVCachePoolBinding> bindings;
  private final SharedIndexInformer<KVCachePool> pools;
  private final SharedIndexInformer<KVCacheBackend> backends;
  private final SharedIndexInformer<ModelDeployment> deployments;
  private final SharedIndexInformer<Setting> settings;
  private final List<SharedIndexInformer<Pod>> injectedPods;
  private final List<SharedIndexInformer<?>> informers;
  private final KubernetesClient client;
  private final Duration staleAfter;
  private final Clock clock;
  private volatile Instant unwatchedSince;
  private volatile SettingsRead settingsRead;

  private InformerClusterView(
      KubernetesClient client, Set<String> namespaces, Duration staleAfter, Clock clock) {
    this.client = client;
    this.staleAfter = staleAfter;
    this.clock = clock;
    this.bindings = client.resources(KVCachePoolBinding.class).inAnyNamespace().inform();
    this.pools = client.resources(KVCachePool.class).inform();
    this.backends = client.resources(KVCacheBackend.class).inform();
    this.deployments = client.resources(ModelDeployment.class).inAnyNamespace().inform();
    this.settings = client.resources(Setting.class).inNamespace(Settings.NAMESPACE).inform();
    // Only Pods asking for injection: every other Pod stays out of the webhook's memory. A scoped
    // operator may list Pods only in its namespaces.
    this.injectedPods =
        namespaces.isEmpty()
            ? List.of(client.pods().inAnyNamespace().withLabel(Keys.INJECT, "true").inform())
            : namespaces.stream()
                .sorted()
                .map(n -> client.pods().inNamespace(n).withLabel(Keys.INJECT, "true").inform())
                .toList();
    this.informers =
        Stream.<SharedIndexInformer<?>>concat(
                Stream.of(bindings, pools, backends, deployments, settings), injectedPods.stream())
            .toList();
  }

  /** Starts the informers; {@link #synced()} turns true once each has listed. */
  public static InformerClusterView start(KubernetesClient client) {
    return start(client, Set.of());
  }

  /** As {@link #start(KubernetesClient)}, reading Pods in {@code namespaces} only (empty: all). */
  public static InformerClusterView start(KubernetesClient client, Set<String> namespaces) {
    return new InformerClusterView(client, namespaces, STALE_AFTER, Clock.systemUTC());
  }

  /** How long the informers may be without a watch before the view is stale: a reconnect is not. */
  public static final Duration STALE_AFTER = Duration.ofSeconds(30);

  /**
   * As {@link #start(KubernetesClient)}, the view turning stale once an informer has had no watch
   * on the API server for {@code staleAfter} by {@code clock}.
   */
  public static InformerClusterView start(
      KubernetesClient client, Duration staleAfter, Clock clock) {
    return new InformerClusterView(client, Set.of(), staleAfter, clock);
  }

  /**
   * Stale once some informer has not been watching for {@code staleAfter}: its cache holds what the
   * API server said then, and nothing since. Measured from the first call that finds it so; a
   * caller asks on every review.
   */
  @Override
  public Optional<String> staleness() {
    if (watching()) {
      unwatchedSince = null;
      return Optional.empty();
    }
    Instant now = clock.instant();
    Instant since = unwatchedSince;
    if (since == null) {
      unwatchedSince = now;
      return Optional.empty();
    }
    Duration quiet = Duration.between(since, now);
    if (quiet.compareTo(staleAfter) < 0) {
      return Optional.empty();
    }
    return Optional.of(
        "has not heard from the API server for "
            + quiet.toSeconds()
            + " s (no watch on "
            + informers.stream()
                .filter(i -> !i.isWatching())
                .map(i -> i.getApiTypeClass().getSimpleName())
                .collect(Collectors.joining(", "))
            + ")");
  }

  /** Whether every informer has its watch on the API server open now. */
  public boolean watching() {
    return informers.stream().allMatch(SharedIndexInformer::isWatching);
  }

  public boolean synced() {
    return informers.stream().allMatch(SharedIndexInformer::hasSynced);
  }

  @Override
  public Optional<KVCachePoolBinding> binding(String namespace, String name) {
    return cachedOrRead(
        bindings.getStore().getByKey(Cache.namespaceKeyFunc(namespace, name)),
        () ->
            client.resources(KVCachePoolBinding.class).inNamespace(namespace).withName(name).get());
  }

  @Override
  public List<KVCachePoolBinding> bindings() {
    return bindings.getStore().list();
  }

  @Override
  public Optional<KVCachePool> pool(String name) {
    return cachedOrRead(
        pools.getStore().getByKey(name),
        () -> client.resources(KVCachePool.class).withName(name).get());
  }

  @Override
  public Optional<KVCacheBackend> backend(String name) {
    return cachedOrRead(
        backends.getStore().getByKey(name),
        () -> client.resources(KVCacheBackend.class).withName(name).get());
  }

  /**
   * {@code cached}, or else what the API server holds now: a name not found, an empty name and a
   * read that fails all read as missing, as the cache would say. Inside {@link MemoryOnly#attempt}
   * a read that would go out is not made.
   */
  private static <T> Optional<T> cachedOrRead(T cached, Supplier<T> read) {
    if (cached != null) {
      return Optional.of(cached);
    }
    MemoryOnly.check();
    try {
      return Optional.ofNullable(read.get());
    } catch (KubernetesClientException | IllegalArgumentException e) {
      return Optional.empty();
    }
  }

  @Override
  public List<ModelDeployment> modelDeployments(String namespace) {
    return deployments.getStore().list().stream()
        .filter(d -> namespace.equals(d.getMetadata().getNamespace()))
        .toList();
  }

  @Override
  public List<Pod> injectedPods(String namespace) {
    return injectedPods.stream()
        .flatMap(i -> i.getStore().list().stream())
        .filter(p -> namespace.equals(p.getMetadata().getNamespace()))
        .toList();
  }

  /**
   * Read once per change: every injection asks, and parsing the values was an eighth of a review's
   * handling. The informer stores a new object for each change, so the same objects by identity
   * mean the same Settings.
   */
  @Override
  public EffectiveSettings settings() {
    List<Setting> now = settings.getStore().list();
    SettingsRead read = settingsRead;
    if (read == null || !read.madeOf(now)) {
      read = new SettingsRead(now, Settings.effective(Setting.values(now.stream())));
      settingsRead = read;
    }
    return read.effective();
  }

  /** The Settings in effect, and the Setting objects they were read from. */
  private record SettingsRead(List<Setting> from, EffectiveSettings effective) {
    boolean madeOf(List<Setting> objects) {
      if (objects.size() != from.size()) {
        return false;
      }
      for (int i = 0; i < objects.size(); i++) {
        if (objects.get(i) != from.get(i)) {
          return false;
        }
      }
      return true;
    }
  }

  /** Only a read the cache misses waits, and it asks {@link MemoryOnly} first. */
  @Override
  public boolean mayBlock() {
    return false;
  }

  @Override
  public void close() {
    informers.forEach(SharedIndexInformer::close);
  }
}
