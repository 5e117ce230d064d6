package ai.gpustack.kvcache.attach;

import io.fabric8.kubernetes.api.model.ObjectMeta;
import java.time.Instant;
import java.time.format.DateTimeParseException;
import java.util.Optional;

/**
 * A workload attaching to a reuse domain, as the one-format check orders them: its kind, name, and
 * when it was created. A workload being admitted has no creation time yet and orders after every
 * stored one, so it is measured against the domain's existing attachments; a stored one is measured
 * against the domain's earliest.
 */
public record Workload(String kind, String name, Optional<Instant> created) {
  public static final String MODEL_DEPLOYMENT = "ModelDeployment";
  public static final String POD = "Pod";

  /** A workload under admission: not stored yet, or stored and being changed. */
  public static Workload admitted(String kind, String name) {
    return new Workload(kind, name, Optional.empty());
  }

  /**
   * A stored workload, ordered by its creation time; one read from a file may have none and then
   * orders as one under admission.
   */
  public static Workload stored(String kind, ObjectMeta meta) {
    Optional<Instant> created;
    try {
      created = Optional.ofNullable(meta.getCreationTimestamp()).map(Instant::parse);
    } catch (DateTimeParseException e) {
      created = Optional.empty();
    }
    return new Workload(kind, meta.getName(), created);
  }

  /** {@code kind/name}. */
  public String display() {
    return kind + "/" + name;
  }
}
