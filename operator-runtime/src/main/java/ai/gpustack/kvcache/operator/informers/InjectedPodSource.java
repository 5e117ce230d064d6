package ai.gpustack.kvcache.operator.informers;

import io.fabric8.kubernetes.api.model.HasMetadata;
import io.fabric8.kubernetes.api.model.Pod;
import io.javaoperatorsdk.operator.api.config.informer.InformerEventSourceConfiguration;
import io.javaoperatorsdk.operator.api.reconciler.EventSourceContext;
import io.javaoperatorsdk.operator.processing.event.source.informer.InformerEventSource;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.stream.Stream;

/**
 * An informer of injected Pods that the {@link SharedCaches} hand to another controller: it says
 * when its first list is in, and tells of every arrival and departure after its own controller's
 * filters have had them.
 */
final class InjectedPodSource<P extends HasMetadata> extends InformerEventSource<Pod, P>
    implements SharedCaches.PodCache {
  private final CompletableFuture<Void> synced = new CompletableFuture<>();
  private final SharedCaches shared;

  InjectedPodSource(
      InformerEventSourceConfiguration<Pod> configuration,
      EventSourceContext<P> context,
      SharedCaches shared) {
    super(configuration, context);
    this.shared = shared;
  }

  @Override
  public synchronized void start() {
    // JOSDK's start returns once the informers have listed, or throws.
    super.start();
    synced.complete(null);
  }

  @Override
  public CompletionStage<Void> synced() {
    return synced;
  }

  @Override
  public Stream<Pod> list(String namespace) {
    return list(namespace, p -> true);
  }

  @Override
  public void onAdd(Pod pod) {
    super.onAdd(pod);
    shared.injectedPodMoved(pod);
  }

  @Override
  public void onDelete(Pod pod, boolean stateUnknown) {
    super.onDelete(pod, stateUnknown);
    shared.injectedPodMoved(pod);
  }
}
