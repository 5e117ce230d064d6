package ai.gpustack.kvcache.operator.e2e;

import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.PodBuilder;
import io.fabric8.kubernetes.api.model.PodTemplateSpec;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.KubernetesClientException;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;

/**
 * Valid Pods created one after another, five a second, while something changes underneath: each a
 * copy of a workload's Pod template (labelled {@code app: admission-probe}, so that no ReplicaSet
 * adopts it), each refusal kept with the API server's message.
 */
final class AdmissionProbe implements AutoCloseable {
  static final String LABEL = "admission-probe";

  private final KubernetesClient client;
  private final String namespace;
  private final String prefix;
  private final PodTemplateSpec template;
  private final List<String> admitted = Collections.synchronizedList(new ArrayList<>());
  private final List<String> refused = Collections.synchronizedList(new ArrayList<>());
  private final Thread thread;
  private volatile boolean running = true;

  private AdmissionProbe(
      KubernetesClient client, String namespace, PodTemplateSpec template, String prefix) {
    this.client = client;
    this.namespace = namespace;
    this.prefix = prefix;
    this.template = template;
    this.thread = new Thread(this::run, "admission-probe");
    thread.setDaemon(true);
    thread.start();
  }

  /** Starts creating Pods named {@code <prefix>-<n>}. */
  static AdmissionProbe start(
      KubernetesClient client, String namespace, PodTemplateSpec template, String prefix) {
    return new AdmissionProbe(client, namespace, template, prefix);
  }

  private void run() {
    for (int n = 0; running; n++) {
      Pod pod =
          new PodBuilder()
              .withNewMetadata()
              .withName(prefix + "-" + n)
              .withNamespace(namespace)
              .withLabels(template.getMetadata().getLabels())
              .addToLabels("app", LABEL)
              .withAnnotations(template.getMetadata().getAnnotations())
              .endMetadata()
              .withSpec(template.getSpec())
              .build();
      try {
        client.pods().inNamespace(namespace).resource(pod).create();
        admitted.add(pod.getMetadata().getName());
      } catch (KubernetesClientException e) {
        refused.add(pod.getMetadata().getName() + ": " + e.getMessage());
      }
      try {
        Thread.sleep(200);
      } catch (InterruptedException e) {
        return;
      }
    }
  }

  /** The Pods created so far, by name. */
  List<String> admitted() {
    return List.copyOf(admitted);
  }

  /** The Pods refused so far, each with the API server's message. */
  List<String> refused() {
    return List.copyOf(refused);
  }

  /** Stops after the create under way. */
  @Override
  public void close() {
    running = false;
    try {
      thread.join(30_000);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
  }
}
