package ai.gpustack.kvcache.sandbox;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.util.List;
import java.util.Optional;

/**
 * A Pod's spec is fixed once it is created, as the API server keeps it: an update may change only
 * the fields Kubernetes v1.36.3 lists in {@code updatablePodSpecFields} (the images, {@code
 * activeDeadlineSeconds}, the tolerations, the termination grace period) and the scheduling gates
 * (pkg/apis/core/validation/validation.go, {@code ValidatePodUpdate}). The sandbox's own kubelet
 * writes status only.
 */
final class PodUpdates {
  static final String FORBIDDEN =
      "pod updates may not change fields other than `spec.containers[*].image`,"
          + "`spec.initContainers[*].image`,`spec.activeDeadlineSeconds`,`spec.tolerations` (only"
          + " additions to existing tolerations),`spec.terminationGracePeriodSeconds` (allow it to"
          + " be set to 1 if it was previously negative)";

  private PodUpdates() {}

  /** The refusal of an update from {@code old} to {@code next}, if it changes a fixed field. */
  static Optional<Statuses.Cause> refusal(JsonNode old, JsonNode next) {
    JsonNode before = fixed(old.path("spec"));
    JsonNode after = fixed(next.path("spec"));
    return before.equals(after)
        ? Optional.empty()
        : Optional.of(new Statuses.Cause("FieldValueForbidden", "spec", "Forbidden: " + FORBIDDEN));
  }

  /** {@code spec} without the fields an update may change. */
  private static JsonNode fixed(JsonNode spec) {
    if (!spec.isObject()) {
      return spec;
    }
    ObjectNode copy = ((ObjectNode) spec).deepCopy();
    copy.remove(
        List.of(
            "activeDeadlineSeconds",
            "tolerations",
            "terminationGracePeriodSeconds",
            "schedulingGates"));
    for (String list : List.of("containers", "initContainers")) {
      copy.path(list).forEach(c -> ((ObjectNode) c).remove("image"));
    }
    return copy;
  }
}
