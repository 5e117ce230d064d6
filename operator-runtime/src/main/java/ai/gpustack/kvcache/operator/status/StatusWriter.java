package ai.gpustack.kvcache.operator.status;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.fabric8.kubernetes.api.model.HasMetadata;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.dsl.base.PatchContext;
import io.fabric8.kubernetes.client.dsl.base.PatchType;
import java.util.Set;

/**
 * Writes a status as a JSON merge patch of the fields this writer owns. Unlike a JSON Patch diffed
 * against a cached copy, it never fails on a base that moved, and it leaves alone the fields other
 * writers own (a Binding's {@code usedBy}). Fields this writer dropped are sent as null, so they
 * go.
 */
public final class StatusWriter {
  private StatusWriter() {}

  /** Merges {@code next} into {@code resource}'s status, except the fields in {@code notOwned}. */
  public static void write(
      KubernetesClient client,
      HasMetadata resource,
      Object previous,
      Object next,
      Set<String> notOwned) {
    JsonNode was =
        previous == null
            ? null
            : client.getKubernetesSerialization().convertValue(previous, JsonNode.class);
    ObjectNode status = client.getKubernetesSerialization().convertValue(next, ObjectNode.class);
    notOwned.forEach(status::remove);
    if (was != null) {
      was.fieldNames()
          .forEachRemaining(
              f -> {
                if (!status.has(f) && !notOwned.contains(f)) {
                  status.putNull(f);
                }
              });
    }
    ObjectNode patch = status.objectNode();
    patch.set("status", status);
    client
        .resource(PatchTarget.of(resource))
        .subresource("status")
        .patch(PatchContext.of(PatchType.JSON_MERGE), patch.toString());
  }
}
