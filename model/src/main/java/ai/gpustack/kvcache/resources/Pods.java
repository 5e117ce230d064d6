package ai.gpustack.kvcache.resources;

import io.fabric8.kubernetes.api.model.Pod;
import java.util.Optional;

/** What the operator reads off a replica; the sandbox's kubelet and preflight read the same. */
public final class Pods {
  private Pods() {}

  /** Running, Ready and not being deleted: a replica that serves. */
  public static boolean ready(Pod pod) {
    return pod.getMetadata().getDeletionTimestamp() == null && reportedReady(pod);
  }

  /** Whether the Pod's status says Ready, being deleted or not: how a deleted Pod last stood. */
  public static boolean reportedReady(Pod pod) {
    return pod.getStatus() != null
        && pod.getStatus().getConditions() != null
        && pod.getStatus().getConditions().stream()
            .anyMatch(c -> "Ready".equals(c.getType()) && "True".equals(c.getStatus()));
  }

  /** Whether the Pod asks the webhook for injection: label {@code kvcache.gpustack.ai/inject}. */
  public static boolean injectionRequested(Pod pod) {
    return pod.getMetadata() != null
        && pod.getMetadata().getLabels() != null
        && "true".equals(pod.getMetadata().getLabels().get(Keys.INJECT));
  }

  /** Whether the webhook injected the Pod: it carries the injection record. */
  public static boolean injectionRecorded(Pod pod) {
    return annotation(pod, Keys.INJECTED).isPresent();
  }

  /** The Pod's annotation {@code key}, if it has one. */
  public static Optional<String> annotation(Pod pod, String key) {
    return Optional.ofNullable(pod.getMetadata().getAnnotations()).map(a -> a.get(key));
  }

  public static Optional<String> hash(Pod pod) {
    return Optional.ofNullable(pod.getMetadata().getAnnotations())
        .map(a -> a.get(Keys.POD_SPEC_HASH));
  }

  public static int ordinal(Pod pod) {
    try {
      return Integer.parseInt(pod.getMetadata().getLabels().getOrDefault(Keys.POD_ORDINAL, "-1"));
    } catch (NumberFormatException e) {
      return -1;
    }
  }

  public static String role(Pod pod) {
    return pod.getMetadata().getLabels().getOrDefault(Keys.COMPONENT, "");
  }
}
