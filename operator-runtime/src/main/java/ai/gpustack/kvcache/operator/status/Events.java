package ai.gpustack.kvcache.operator.status;

import io.fabric8.kubernetes.api.model.HasMetadata;
import io.fabric8.kubernetes.api.model.MicroTimeBuilder;
import io.fabric8.kubernetes.api.model.ObjectReferenceBuilder;
import io.fabric8.kubernetes.api.model.events.v1.Event;
import io.fabric8.kubernetes.api.model.events.v1.EventBuilder;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.KubernetesClientException;
import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.time.Instant;
import java.util.HexFormat;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Kubernetes Events about our objects. One event per object, reason and message: repeating the same
 * warning on every reconcile adds nothing, so a second write of the same event is skipped.
 */
public final class Events {
  private static final Logger LOG = LoggerFactory.getLogger(Events.class);
  private final KubernetesClient client;
  private final String reporter;

  /** Events reported by the operator. */
  public Events(KubernetesClient client) {
    this(client, "kvcache-operator");
  }

  /** Events reported by {@code reporter}. */
  public Events(KubernetesClient client, String reporter) {
    this.client = client;
    this.reporter = reporter;
  }

  public void warning(HasMetadata about, String reason, String message) {
    emit(about, "Warning", reason, message);
  }

  private void emit(HasMetadata about, String type, String reason, String message) {
    String namespace =
        about.getMetadata().getNamespace() == null ? "default" : about.getMetadata().getNamespace();
    String name = about.getMetadata().getName() + "." + digest(about.getKind() + reason + message);
    Event event =
        new EventBuilder()
            .withNewMetadata()
            .withName(name)
            .withNamespace(namespace)
            .endMetadata()
            .withType(type)
            .withReason(reason)
            .withNote(message.length() > 1024 ? message.substring(0, 1021) + "..." : message)
            .withAction(reason)
            .withReportingController(reporter)
            .withReportingInstance(reporter)
            .withEventTime(new MicroTimeBuilder().withTime(Instant.now().toString()).build())
            .withRegarding(
                new ObjectReferenceBuilder()
                    .withApiVersion(about.getApiVersion())
                    .withKind(about.getKind())
                    .withName(about.getMetadata().getName())
                    .withNamespace(about.getMetadata().getNamespace())
                    .withUid(about.getMetadata().getUid())
                    .build())
            .build();
    // The name is a digest of what the event says: an AlreadyExists means it was said already,
    // so no read comes first (and the operator needs no get on events).
    try {
      client.events().v1().events().inNamespace(namespace).resource(event).create();
    } catch (KubernetesClientException e) {
      if (e.getCode() != 409) {
        LOG.debug("event {} not written: {}", name, e.getMessage());
      }
    }
  }

  private static String digest(String s) {
    try {
      return HexFormat.of()
          .formatHex(
              MessageDigest.getInstance("SHA-256").digest(s.getBytes(StandardCharsets.UTF_8)),
              0,
              6);
    } catch (NoSuchAlgorithmException e) {
      throw new IllegalStateException(e);
    }
  }
}
