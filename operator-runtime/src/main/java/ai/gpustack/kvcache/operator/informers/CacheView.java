package ai.gpustack.kvcache.operator.informers;

import ai.gpustack.kvcache.api.EffectiveSettings;
import ai.gpustack.kvcache.api.Settings;
import ai.gpustack.kvcache.cluster.ClusterView;
import ai.gpustack.kvcache.resources.KVCacheBackend;
import ai.gpustack.kvcache.resources.KVCachePool;
import ai.gpustack.kvcache.resources.KVCachePoolBinding;
import ai.gpustack.kvcache.resources.ModelDeployment;
import ai.gpustack.kvcache.resources.Setting;
import io.fabric8.kubernetes.api.model.HasMetadata;
import io.fabric8.kubernetes.api.model.Pod;
import io.javaoperatorsdk.operator.api.reconciler.Context;
import io.javaoperatorsdk.operator.processing.event.ResourceID;
import io.javaoperatorsdk.operator.processing.event.source.informer.ManagedInformerEventSource;
import java.util.List;
import java.util.Optional;

/**
 * A {@link ClusterView} over one controller's own informer caches, and the {@link SharedCaches} of
 * another.
 */
public final class CacheView implements ClusterView {
  private final Context<?> context;
  private final Optional<SharedCaches> shared;

  /** A controller that reads neither deployments nor injected Pods. */
  public CacheView(Context<?> context) {
    this.context = context;
    this.shared = Optional.empty();
  }

  /** A controller that reads the deployments and injected Pods another one caches. */
  public CacheView(Context<?> context, SharedCaches shared) {
    this.context = context;
    this.shared = Optional.of(shared);
  }

  @SuppressWarnings("unchecked")
  private <R extends HasMetadata> ManagedInformerEventSource<R, ?, ?> source(Class<R> type) {
    return (ManagedInformerEventSource<R, ?, ?>)
        context.eventSourceRetriever().getEventSourceFor(type);
  }

  @Override
  @SuppressWarnings("unchecked")
  public Optional<KVCachePoolBinding> binding(String namespace, String name) {
    if (context.getPrimaryResource() instanceof KVCachePoolBinding) {
      return ((Context<KVCachePoolBinding>) context)
          .getPrimaryCache()
          .get(new ResourceID(name, namespace));
    }
    return source(KVCachePoolBinding.class).get(new ResourceID(name, namespace));
  }

  @Override
  @SuppressWarnings("unchecked")
  public List<KVCachePoolBinding> bindings() {
    if (context.getPrimaryResource() instanceof KVCachePoolBinding) {
      return ((Context<KVCachePoolBinding>) context).getPrimaryCache().list().toList();
    }
    return source(KVCachePoolBinding.class).list(b -> true).toList();
  }

  @Override
  public Optional<KVCachePool> pool(String name) {
    return source(KVCachePool.class).get(new ResourceID(name));
  }

  /** The pools naming {@code backend}. */
  public List<KVCachePool> poolsNaming(String backend) {
    return source(KVCachePool.class)
        .list(p -> p.getSpec() != null && p.getSpec().backends().contains(backend))
        .toList();
  }

  @Override
  public Optional<KVCacheBackend> backend(String name) {
    return source(KVCacheBackend.class).get(new ResourceID(name));
  }

  @Override
  @SuppressWarnings("unchecked")
  public List<ModelDeployment> modelDeployments(String namespace) {
    if (context.getPrimaryResource() instanceof ModelDeployment) {
      return ((Context<ModelDeployment>) context).getPrimaryCache().list(namespace).toList();
    }
    return shared().deployments(namespace);
  }

  @Override
  public List<Pod> injectedPods(String namespace) {
    return shared().injectedPods(namespace);
  }

  private SharedCaches shared() {
    return shared.orElseThrow(
        () -> new IllegalStateException("this controller reads no deployments or injected Pods"));
  }

  @Override
  public EffectiveSettings settings() {
    return Settings.effective(
        Setting.values(source(Setting.class).list(Settings.NAMESPACE, s -> true)));
  }
}
