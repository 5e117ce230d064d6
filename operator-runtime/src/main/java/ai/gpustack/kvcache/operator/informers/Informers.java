package ai.gpustack.kvcache.operator.informers;

import ai.gpustack.kvcache.api.Settings;
import ai.gpustack.kvcache.resources.Keys;
import io.fabric8.kubernetes.api.model.HasMetadata;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.client.CustomResource;
import io.javaoperatorsdk.operator.api.config.informer.InformerEventSourceConfiguration;
import io.javaoperatorsdk.operator.api.reconciler.EventSourceContext;
import io.javaoperatorsdk.operator.processing.event.ResourceID;
import io.javaoperatorsdk.operator.processing.event.source.EventSource;
import io.javaoperatorsdk.operator.processing.event.source.SecondaryToPrimaryMapper;
import io.javaoperatorsdk.operator.processing.event.source.filter.OnUpdateFilter;
import io.javaoperatorsdk.operator.processing.event.source.informer.InformerEventSource;
import java.util.Objects;
import java.util.function.Function;
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

  /** The name of the Pods-asking-for-injection source, apart from a controller's own Pods. */
  public static final String INJECTED_PODS = "injected-pods";

  /**
   * Pods labelled for injection, in every namespace, waking the primaries {@code mapper} names on
   * the changes {@code relevant} lets through.
   */
  public static <P extends HasMetadata> EventSource<Pod, P> injectedPods(
      EventSourceContext<P> context,
      SecondaryToPrimaryMapper<Pod> mapper,
      OnUpdateFilter<Pod> relevant) {
    return new InformerEventSource<>(
        InformerEventSourceConfiguration.from(Pod.class, context.getPrimaryResourceClass())
            .withName(INJECTED_PODS)
            .withLabelSelector(Keys.INJECT + "=true")
            .withSecondaryToPrimaryMapper(mapper)
            .withOnUpdateFilter(relevant)
            .build(),
        context);
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
