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

/** A {@link ClusterView} over one controller's own informer caches. */
public final class CacheView implements ClusterView {
  private final Context<?> context;
  private final Optional<DeploymentCache> deployments;

  public CacheView(Context<?> context) {
    this.context = context;
    this.deployments = Optional.empty();
  }

  /** A controller of another kind that reads the deployments from {@code deployments}. */
  public CacheView(Context<?> context, DeploymentCache deployments) {
    this.context = context;
    this.deployments = Optional.of(deployments);
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
    return deployments
        .orElseThrow(() -> new IllegalStateException("this controller reads no ModelDeployments"))
        .in(namespace);
  }

  /** The injected Pods of {@code namespace}, from the controller's injected-pods sources. */
  @Override
  public List<Pod> injectedPods(String namespace) {
    return Informers.pods(context, Informers.INJECTED_PODS, namespace)
        .map(s -> s.list(namespace, p -> true).toList())
        .orElse(List.of());
  }

  @Override
  public EffectiveSettings settings() {
    return Settings.effective(
        Setting.values(source(Setting.class).list(Settings.NAMESPACE, s -> true)));
  }
}
