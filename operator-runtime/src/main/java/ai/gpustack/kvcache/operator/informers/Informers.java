package ai.gpustack.kvcache.operator.informers;

import ai.gpustack.kvcache.api.Settings;
import ai.gpustack.kvcache.resources.Keys;
import ai.gpustack.kvcache.resources.Pods;
import io.fabric8.kubernetes.api.model.HasMetadata;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.client.CustomResource;
import io.fabric8.kubernetes.client.informers.cache.ItemStore;
import io.javaoperatorsdk.operator.api.config.informer.InformerConfiguration;
import io.javaoperatorsdk.operator.api.config.informer.InformerEventSourceConfiguration;
import io.javaoperatorsdk.operator.api.reconciler.Context;
import io.javaoperatorsdk.operator.api.reconciler.EventSourceContext;
import io.javaoperatorsdk.operator.processing.event.ResourceID;
import io.javaoperatorsdk.operator.processing.event.source.EventSource;
import io.javaoperatorsdk.operator.processing.event.source.SecondaryToPrimaryMapper;
import io.javaoperatorsdk.operator.processing.event.source.filter.OnUpdateFilter;
import io.javaoperatorsdk.operator.processing.event.source.informer.InformerEventSource;
import io.javaoperatorsdk.operator.processing.event.source.informer.TransformingItemStore;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.Set;
import java.util.function.BiFunction;
import java.util.function.Function;
import java.util.function.UnaryOperator;
import java.util.stream.Collectors;
import java.util.stream.Stream;

/** Informer event sources: what wakes a controller, and the cache it then reads. */
public final class Informers {
  private Informers() {}

  /** Every {@code type} in every namespace, waking the primaries {@code mapper} names. */
  public static <R extends HasMetadata, P extends HasMetadata> EventSource<R, P> watch(
      Class<R> type, EventSourceContext<P> context, Function<R, Stream<P>> mapper) {
    return watch(type, context, mapper, (after, before) -> true);
  }

  /**
   * As {@link #watch(Class, EventSourceContext, Function)}, but an update wakes the primaries only
   * when {@code relevant} says it changed something they read. Without it, a status every primary
   * writes (a Binding's {@code usedBy}) wakes every primary on every write: n² work. JOSDK passes
   * the new object first.
   */
  public static <R extends HasMetadata, P extends HasMetadata> EventSource<R, P> watch(
      Class<R> type,
      EventSourceContext<P> context,
      Function<R, Stream<P>> mapper,
      OnUpdateFilter<R> relevant) {
    SecondaryToPrimaryMapper<R> toPrimary =
        r -> mapper.apply(r).map(ResourceID::fromResource).collect(Collectors.toSet());
    InformerEventSourceConfiguration.Builder<R> config =
        InformerEventSourceConfiguration.from(type, context.getPrimaryResourceClass())
            .withSecondaryToPrimaryMapper(toPrimary)
            .withOnUpdateFilter(relevant);
    config.withWatchAllNamespaces();
    return new InformerEventSource<>(config.build(), context);
  }

  /** Whether the spec or the deletion mark differs: what a reader of the spec cares about. */
  public static boolean specOrDeletion(HasMetadata before, HasMetadata after) {
    return !Objects.equals(
            before.getMetadata().getDeletionTimestamp(), after.getMetadata().getDeletionTimestamp())
        || !Objects.equals(spec(before), spec(after));
  }

  private static Object spec(HasMetadata resource) {
    return resource instanceof CustomResource<?, ?> custom ? custom.getSpec() : resource;
  }

  /**
   * A primary's cache that keeps it without {@code metadata.managedFields}: nothing here reads
   * them, every write is a patch or leaves them out (which keeps the server's), and at 2,000
   * ModelDeployments their nested field maps were 80,000 of the heap's maps, 12 MiB.
   */
  public static <R extends HasMetadata> ItemStore<R> withoutManagedFields() {
    return new TransformingItemStore<>(
        r -> {
          r.getMetadata().setManagedFields(null);
          return r;
        });
  }

  /** The name of the Pods-asking-for-injection source, apart from a controller's own Pods. */
  public static final String INJECTED_PODS = "injected-pods";

  private static final String BY_OWNER = "owner";

  /**
   * Pods labelled for injection, waking the primaries {@code mapper} names on the events {@code
   * filters} let through; read with {@link #owned} (by the Binding they name), or by another
   * controller through {@code shared}, which also hears of every arrival and departure.
   */
  public static <P extends HasMetadata> List<EventSource<Pod, P>> injectedPods(
      EventSourceContext<P> context,
      SecondaryToPrimaryMapper<Pod> mapper,
      UnaryOperator<InformerEventSourceConfiguration.Builder<Pod>> filters,
      SharedCaches shared) {
    return pods(
        INJECTED_PODS,
        context,
        p -> Pods.annotation(p, Keys.BINDING),
        config ->
            filters.apply(
                config
                    .withLabelSelector(Keys.INJECT + "=true")
                    .withSecondaryToPrimaryMapper(mapper)),
        (scope, config) -> {
          InjectedPodSource<P> source = new InjectedPodSource<>(config, context, shared);
          shared.injectedPodsFrom(scope, source);
          return source;
        });
  }

  /**
   * Pods as {@code configure} selects them, in the namespaces the controller watches, cached as
   * {@link CachedPod} keeps them. One source per watched namespace (one for all when it watches
   * all), each with a store of its own: JOSDK hands an event source's one configured store to the
   * informer of every namespace, and an informer's relist drops from its store whatever it did not
   * list, so a shared store would lose the other namespaces' Pods. Each is indexed by {@code
   * owner}, the name of what a Pod belongs to, for {@link #owned}.
   */
  public static <P extends HasMetadata> List<EventSource<Pod, P>> pods(
      String name,
      EventSourceContext<P> context,
      Function<Pod, Optional<String>> owner,
      UnaryOperator<InformerEventSourceConfiguration.Builder<Pod>> configure) {
    return pods(
        name,
        context,
        owner,
        configure,
        (scope, config) -> new InformerEventSource<>(config, context));
  }

  private static <P extends HasMetadata> List<EventSource<Pod, P>> pods(
      String name,
      EventSourceContext<P> context,
      Function<Pod, Optional<String>> owner,
      UnaryOperator<InformerEventSourceConfiguration.Builder<Pod>> configure,
      BiFunction<
              Optional<String>, InformerEventSourceConfiguration<Pod>, InformerEventSource<Pod, P>>
          make) {
    Set<String> watched = context.getControllerConfiguration().getEffectiveNamespaces();
    Stream<Optional<String>> scopes =
        InformerConfiguration.allNamespacesWatched(watched)
            ? Stream.of(Optional.empty())
            : watched.stream().sorted().map(Optional::of);
    return scopes
        .<EventSource<Pod, P>>map(
            scope -> {
              InformerEventSourceConfiguration.Builder<Pod> config =
                  configure.apply(
                      InformerEventSourceConfiguration.from(
                              Pod.class, context.getPrimaryResourceClass())
                          .withName(sourceName(name, scope))
                          .withItemStore(new TransformingItemStore<>(CachedPod::of)));
              scope.ifPresentOrElse(config::withNamespaces, config::withWatchAllNamespaces);
              InformerEventSource<Pod, P> source = make.apply(scope, config.build());
              source.addIndexers(
                  Map.of(
                      BY_OWNER,
                      p ->
                          owner.apply(p).map(o -> p.getMetadata().getNamespace() + "/" + o).stream()
                              .toList()));
              return source;
            })
        .toList();
  }

  /** The source {@link #pods} named {@code name} made for {@code namespace}'s Pods, if watched. */
  @SuppressWarnings("unchecked")
  private static <P extends HasMetadata> Optional<InformerEventSource<Pod, P>> pods(
      Context<P> context, String name, String namespace) {
    Set<String> watched = context.getControllerConfiguration().getEffectiveNamespaces();
    Optional<String> scope;
    if (InformerConfiguration.allNamespacesWatched(watched)) {
      scope = Optional.empty();
    } else if (watched.contains(namespace)) {
      scope = Optional.of(namespace);
    } else {
      return Optional.empty();
    }
    return Optional.of(
        (InformerEventSource<Pod, P>)
            context.eventSourceRetriever().getEventSourceFor(Pod.class, sourceName(name, scope)));
  }

  /**
   * The Pods of source {@code name} in {@code namespace} that belong to {@code owner}, from its
   * index: {@code getSecondaryResources} gathers Pods into a set, hashing each whole Pod, and a
   * scan of the namespace costs every Pod in it, on every reconcile.
   */
  public static <P extends HasMetadata> List<Pod> owned(
      Context<P> context, String name, String namespace, String owner) {
    return pods(context, name, namespace)
        .map(s -> s.byIndex(BY_OWNER, namespace + "/" + owner))
        .orElse(List.of());
  }

  private static String sourceName(String name, Optional<String> namespace) {
    return namespace.map(ns -> name + "@" + ns).orElse(name);
  }

  /** Settings, in the system namespace: every change wakes every primary. */
  public static <R extends HasMetadata, P extends HasMetadata> EventSource<R, P> everything(
      Class<R> type, EventSourceContext<P> context) {
    SecondaryToPrimaryMapper<R> all =
        r ->
            context
                .getPrimaryCache()
                .list()
                .map(ResourceID::fromResource)
                .collect(Collectors.toSet());
    return new InformerEventSource<>(
        InformerEventSourceConfiguration.from(type, context.getPrimaryResourceClass())
            .withNamespaces(Settings.NAMESPACE)
            .withSecondaryToPrimaryMapper(all)
            .build(),
        context);
  }
}
