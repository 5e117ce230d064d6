package ai.gpustack.kvcache.operator.reconcile;

import ai.gpustack.kvcache.api.Settings;
import io.fabric8.kubernetes.api.model.HasMetadata;
import io.javaoperatorsdk.operator.api.config.informer.InformerEventSourceConfiguration;
import io.javaoperatorsdk.operator.api.reconciler.EventSourceContext;
import io.javaoperatorsdk.operator.processing.event.ResourceID;
import io.javaoperatorsdk.operator.processing.event.source.EventSource;
import io.javaoperatorsdk.operator.processing.event.source.SecondaryToPrimaryMapper;
import io.javaoperatorsdk.operator.processing.event.source.informer.InformerEventSource;
import java.util.function.Function;
import java.util.stream.Collectors;
import java.util.stream.Stream;

/** Informer event sources: what wakes a controller, and the cache it then reads. */
final class Informers {
  private Informers() {}

  /** Every {@code type} in every namespace, waking the primaries {@code mapper} names. */
  static <R extends HasMetadata, P extends HasMetadata> EventSource<R, P> watch(
      Class<R> type, EventSourceContext<P> context, Function<R, Stream<P>> mapper) {
    SecondaryToPrimaryMapper<R> toPrimary =
        r -> mapper.apply(r).map(ResourceID::fromResource).collect(Collectors.toSet());
    InformerEventSourceConfiguration.Builder<R> config =
        InformerEventSourceConfiguration.from(type, context.getPrimaryResourceClass())
            .withSecondaryToPrimaryMapper(toPrimary);
    config.withWatchAllNamespaces();
    return new InformerEventSource<>(config.build(), context);
  }

  /** Settings, in the system namespace: every change wakes every primary. */
  static <R extends HasMetadata, P extends HasMetadata> EventSource<R, P> everything(
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
