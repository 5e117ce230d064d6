package ai.gpustack.kvcache.operator.reconcile;

import ai.gpustack.kvcache.api.KVCachePoolBindingStatus;
import ai.gpustack.kvcache.api.WorkloadRef;
import ai.gpustack.kvcache.resources.KVCachePoolBinding;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.dsl.base.PatchContext;
import io.fabric8.kubernetes.client.dsl.base.PatchType;
import java.util.List;

/**
 * A workload's claim on its Binding, kept in the Binding's {@code status.usedBy}. Every workload of
 * a Binding writes the same list, so a claim is a JSON Patch that appends one entry and a release
 * one that tests the entry at its index and removes it: the API server applies either atomically,
 * with no resourceVersion to collide on. Only a claim on an empty list, which may not exist yet, is
 * a resourceVersion-guarded replace; it and a failed test are retried on a fresh read.
 */
final class Claims {
  private final KubernetesClient client;

  Claims(KubernetesClient client) {
    this.client = client;
  }

  static boolean holds(KVCachePoolBinding binding, WorkloadRef ref) {
    return binding.getStatus() != null && binding.getStatus().usedBy().contains(ref);
  }

  /**
   * Adds {@code ref} to the Binding's usedBy, which {@code cached} (the informer's copy) does not
   * show it in. A non-empty usedBy takes the append straight away: no read of a list that grows
   * with the fleet. Otherwise, or when the append is refused, the Binding is read fresh first.
   */
  void claim(KVCachePoolBinding cached, WorkloadRef ref) {
    if (cached.getStatus() != null && !cached.getStatus().usedBy().isEmpty()) {
      try {
        patch(cached, List.of(op("add", "/status/usedBy/-").set("value", json(ref))));
        return;
      } catch (io.fabric8.kubernetes.client.KubernetesClientException e) {
        if (e.getCode() != 422 && e.getCode() != 409) {
          throw e;
        }
      }
    }
    claim(cached.getMetadata().getNamespace(), cached.getMetadata().getName(), ref);
  }

  /** Adds {@code ref} to the Binding's usedBy unless it is there. */
  private void claim(String namespace, String binding, WorkloadRef ref) {
    Conflicts.retry(
        () -> {
          KVCachePoolBinding latest = read(namespace, binding);
          if (latest == null || holds(latest, ref)) {
            return latest;
          }
          if (latest.getStatus() == null || latest.getStatus().usedBy().isEmpty()) {
            latest.setStatus(
                (latest.getStatus() == null
                        ? KVCachePoolBindingStatus.builder().build()
                        : latest.getStatus())
                    .withUsedBy(ref));
            return client.resource(latest).updateStatus();
          }
          return patch(latest, List.of(op("add", "/status/usedBy/-").set("value", json(ref))));
        });
  }

  /** Removes {@code ref} from the Binding's usedBy if it is there. */
  void release(String namespace, String binding, WorkloadRef ref) {
    Conflicts.retry(
        () -> {
          KVCachePoolBinding latest = read(namespace, binding);
          if (latest == null || !holds(latest, ref)) {
            return latest;
          }
          String at = "/status/usedBy/" + latest.getStatus().usedBy().indexOf(ref);
          return patch(latest, List.of(op("test", at).set("value", json(ref)), op("remove", at)));
        });
  }

  private KVCachePoolBinding read(String namespace, String name) {
    return client.resources(KVCachePoolBinding.class).inNamespace(namespace).withName(name).get();
  }

  private KVCachePoolBinding patch(KVCachePoolBinding binding, List<ObjectNode> ops) {
    ArrayNode patch = JsonNodeFactory.instance.arrayNode().addAll(ops);
    return (KVCachePoolBinding)
        client
            .resource(Named.only(binding))
            .subresource("status")
            .patch(PatchContext.of(PatchType.JSON), patch.toString());
  }

  private static ObjectNode op(String op, String path) {
    return JsonNodeFactory.instance.objectNode().put("op", op).put("path", path);
  }

  private JsonNode json(WorkloadRef ref) {
    return client.getKubernetesSerialization().convertValue(ref, JsonNode.class);
  }
}
