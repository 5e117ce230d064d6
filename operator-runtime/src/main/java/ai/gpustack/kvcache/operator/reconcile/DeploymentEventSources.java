package ai.gpustack.kvcache.operator.reconcile;

import ai.gpustack.kvcache.operator.informers.Informers;
import ai.gpustack.kvcache.operator.informers.SharedCaches;
import ai.gpustack.kvcache.operator.render.PodRenderer;
import ai.gpustack.kvcache.resources.KVCacheBackend;
import ai.gpustack.kvcache.resources.KVCachePool;
import ai.gpustack.kvcache.resources.KVCachePoolBinding;
import ai.gpustack.kvcache.resources.Keys;
import ai.gpustack.kvcache.resources.ModelDeployment;
import ai.gpustack.kvcache.resources.Owners;
import ai.gpustack.kvcache.resources.Pods;
import ai.gpustack.kvcache.resources.Setting;
import io.fabric8.kubernetes.api.model.HasMetadata;
import io.fabric8.kubernetes.api.model.OwnerReference;
import io.fabric8.kubernetes.api.model.Pod;
import io.javaoperatorsdk.operator.api.reconciler.EventSourceContext;
import io.javaoperatorsdk.operator.processing.event.ResourceID;
import io.javaoperatorsdk.operator.processing.event.source.EventSource;
import io.javaoperatorsdk.operator.processing.event.source.inbound.SimpleInboundEventSource;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Objects;
import java.util.Optional;
import java.util.Set;
import java.util.function.Consumer;
import java.util.stream.Collectors;
import java.util.stream.Stream;

/**
 * What wakes a ModelDeployment's reconcile: its replicas, the injected Pods of its domain, its
 * Binding, pools, backends and the Settings, each filtered to the changes the reconcile decides on.
 */
final class DeploymentEventSources {
  /** The name of the replicas' event source, by which the reconciler reads them. */
  static final String REPLICAS = "replicas";

  private DeploymentEventSources() {}

  /**
   * The event sources of the reconciler. {@code claimsDropped} hears of a Binding whose usedBy lost
   * a claim before the deployments it wakes reconcile; {@code shared} tells of injected Pods.
   */
  static List<EventSource<?, ModelDeployment>> of(
      EventSourceContext<ModelDeployment> context,
      Consumer<KVCachePoolBinding> claimsDropped,
      SharedCaches shared) {
    List<EventSource<?, ModelDeployment>> sources = new ArrayList<>(replicas(context));
    // Injected Pods share the domain's one-format rule; their arrival or departure can change
    // which attachment is the domain's earliest. The KVCachePoolBinding controller's informer
    // tells of them: a second one would read every injected Pod's every write again.
    SimpleInboundEventSource<ModelDeployment> injected =
        new SimpleInboundEventSource<>(Informers.INJECTED_PODS);
    shared.onInjectedPodMoves(p -> namingBindingOf(context, p).forEach(injected::propagateEvent));
    sources.add(injected);
    sources.addAll(
        List.of(
            Informers.watch(
                KVCachePoolBinding.class,
                context,
                b ->
                    context
                        .getPrimaryCache()
                        .list(b.getMetadata().getNamespace())
                        .filter(md -> md.attachesThrough(b.getMetadata().getName())),
                (after, before) -> {
                  if (claimsDropped(before, after)) {
                    claimsDropped.accept(after);
                    return true;
                  }
                  return Informers.specOrDeletion(before, after);
                }),
            Informers.watch(
                KVCachePool.class,
                context,
                p -> attached(context),
                (after, before) ->
                    Informers.specOrDeletion(before, after)
                        || !Objects.equals(clientEndpoint(before), clientEndpoint(after))),
            Informers.watch(
                KVCacheBackend.class, context, b -> attached(context), Informers::specOrDeletion),
            Informers.everything(Setting.class, context)));
    return sources;
  }

  /**
   * A replica wakes its deployment when it turns Ready or un-Ready while not terminating, or goes
   * away (a replaced one's successor is created then); not for its own creation, its start of
   * terminating (nothing can be done until it is gone: the replacement takes its name) or the
   * kubelet's other status writes, which change nothing the reconcile decides on.
   */
  private static List<EventSource<Pod, ModelDeployment>> replicas(
      EventSourceContext<ModelDeployment> context) {
    return Informers.pods(
        REPLICAS,
        context,
        DeploymentEventSources::deploymentOf,
        config ->
            config
                .withLabelSelector(Keys.MANAGED_BY + "=" + PodRenderer.MANAGER)
                .withOnAddFilter(p -> false)
                .withOnUpdateFilter(
                    (after, before) ->
                        after.getMetadata().getDeletionTimestamp() == null
                            && Pods.ready(after) != Pods.ready(before)));
  }

  /**
   * The ModelDeployment a replica belongs to: its controlling owner, when the instance label names
   * the same one.
   */
  private static Optional<String> deploymentOf(Pod pod) {
    String instance =
        Optional.ofNullable(pod.getMetadata().getLabels())
            .map(l -> l.get(Keys.INSTANCE))
            .orElse(null);
    return Owners.controller(pod)
        .filter(r -> HasMetadata.getKind(ModelDeployment.class).equals(r.getKind()))
        .map(OwnerReference::getName)
        .filter(name -> name.equals(instance));
  }

  /** The deployments in an injected Pod's namespace attached through the Binding it names. */
  private static Set<ResourceID> namingBindingOf(
      EventSourceContext<ModelDeployment> context, Pod pod) {
    return Pods.annotation(pod, Keys.BINDING)
        .map(
            b ->
                context
                    .getPrimaryCache()
                    .list(pod.getMetadata().getNamespace())
                    .filter(md -> md.attachesThrough(b))
                    .map(ResourceID::fromResource)
                    .collect(Collectors.toSet()))
        .orElse(Set.of());
  }

  /**
   * A claim removed from usedBy must be made again by its deployment if it still exists. A set,
   * because the lists hold the whole fleet: list against list was 4 % of the operator's CPU samples
   * at 2,000 deployments on one Binding.
   */
  private static boolean claimsDropped(KVCachePoolBinding before, KVCachePoolBinding after) {
    return before.getStatus() != null
        && !(after.getStatus() != null
            && new HashSet<>(after.getStatus().usedBy()).containsAll(before.getStatus().usedBy()));
  }

  private static Optional<String> clientEndpoint(KVCachePool pool) {
    return pool.getStatus() == null ? Optional.empty() : pool.getStatus().clientEndpoint();
  }

  private static Stream<ModelDeployment> attached(EventSourceContext<ModelDeployment> context) {
    return context
        .getPrimaryCache()
        .list()
        .filter(md -> md.getSpec() != null && md.getSpec().kvCache().isPresent());
  }
}
