package ai.gpustack.kvcache.sandbox;

import ai.gpustack.kvcache.resources.Pods;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.PodCondition;
import io.fabric8.kubernetes.api.model.PodConditionBuilder;
import io.fabric8.kubernetes.api.model.PodStatusBuilder;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.KubernetesClientException;
import io.fabric8.kubernetes.client.informers.ResourceEventHandler;
import io.fabric8.kubernetes.client.informers.SharedIndexInformer;
import java.time.Duration;
import java.time.Instant;
import java.time.temporal.ChronoUnit;
import java.util.List;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

/** A stand-in kubelet: a created Pod turns Running and Ready after a short start-up delay. */
public final class Kubelet implements AutoCloseable {
  private final KubernetesClient client;
  private final Duration startup;
  private final ScheduledExecutorService scheduler =
      Executors.newSingleThreadScheduledExecutor(
          r -> {
            Thread t = new Thread(r, "sandbox-kubelet");
            t.setDaemon(true);
            return t;
          });
  private final AtomicInteger addresses = new AtomicInteger(10);
  private final SharedIndexInformer<Pod> informer;
  private volatile boolean paused;

  /** Starts watching Pods; each turns Ready {@code startup} after it is seen. */
  public Kubelet(KubernetesClient client, Duration startup) {
    this.client = client;
    this.startup = startup;
    this.informer =
        client
            .pods()
            .inAnyNamespace()
            .inform(
                new ResourceEventHandler<>() {
                  @Override
                  public void onAdd(Pod pod) {
                    schedule(pod);
                  }

                  @Override
                  public void onUpdate(Pod before, Pod pod) {
                    schedule(pod);
                  }

                  @Override
                  public void onDelete(Pod pod, boolean unknown) {}
                });
  }

  /** While paused, no Pod starts; on resume, every waiting Pod does. */
  public void pause(boolean pause) {
    this.paused = pause;
    if (!pause) {
      informer.getStore().list().forEach(this::schedule);
    }
  }

  private void schedule(Pod pod) {
    if (paused || pod.getMetadata().getDeletionTimestamp() != null || Pods.ready(pod)) {
      return;
    }
    scheduler.schedule(() -> start(pod), startup.toMillis(), TimeUnit.MILLISECONDS);
  }

  private void start(Pod pod) {
    if (paused) {
      return;
    }
    String now = Instant.now().truncatedTo(ChronoUnit.SECONDS).toString();
    List<PodCondition> conditions =
        List.of("PodScheduled", "Initialized", "ContainersReady", "Ready").stream()
            .map(
                type ->
                    new PodConditionBuilder()
                        .withType(type)
                        .withStatus("True")
                        .withLastTransitionTime(now)
                        .build())
            .toList();
    try {
      client
          .pods()
          .inNamespace(pod.getMetadata().getNamespace())
          .withName(pod.getMetadata().getName())
          .edit(
              p -> {
                if (p.getMetadata().getUid() != null
                    && !p.getMetadata().getUid().equals(pod.getMetadata().getUid())) {
                  return p;
                }
                p.setStatus(
                    new PodStatusBuilder()
                        .withPhase("Running")
                        .withConditions(conditions)
                        .withStartTime(now)
                        .withPodIP("10.244.0." + addresses.incrementAndGet() % 250)
                        .build());
                return p;
              });
    } catch (KubernetesClientException e) {
      // The Pod was replaced or deleted meanwhile: nothing to start.
    }
  }

  @Override
  public void close() {
    informer.close();
    scheduler.shutdownNow();
  }
}
