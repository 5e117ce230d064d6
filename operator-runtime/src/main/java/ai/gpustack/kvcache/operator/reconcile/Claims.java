package ai.gpustack.kvcache.operator.reconcile;

import ai.gpustack.kvcache.api.KVCachePoolBindingStatus;
import ai.gpustack.kvcache.api.WorkloadRef;
import ai.gpustack.kvcache.operator.status.PatchTarget;
import ai.gpustack.kvcache.resources.KVCachePoolBinding;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.dsl.base.PatchContext;
import io.fabric8.kubernetes.client.dsl.base.PatchType;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.ConcurrentHashMap;

/**
 * A workload's claim on its Binding, kept in the Binding's {@code status.usedBy}. Every workload of
 * a Binding writes the same list, so a claim is a JSON Patch that appends and a release one that
 * tests the entry at its index and removes it: the API server applies either atomically, with no
 * resourceVersion to collide on. Only a claim on an empty list, which may not exist yet, is a
 * resourceVersion-guarded replace; it and a failed test are retried on a fresh read.
 *
 * <p>Claims on one Binding are written as a group: while one append is in flight, the claims that
 * arrive wait and go in the next patch together. A fleet's cold start claims the same Binding once
 * per deployment, and each write sends every watcher the whole list again: quadratic in the fleet
 * when written one by one. Each caller still returns only once its own claim is stored.
 */
final class Claims {
  /** Claims collecting for the next write, by Binding; guarded by itself. */
  private final Map<String, Group> collecting = new HashMap<>();

  /** One writer per Binding at a time. */
  private final Map<String, Object> writers = new ConcurrentHashMap<>();

  /** Claims written in one patch, and how that write ended. */
  private static final class Group {
    final Set<WorkloadRef> refs = new LinkedHashSet<>();
    final CompletableFuture<Void> written = new CompletableFuture<>();
  }

  static boolean holds(KVCachePoolBinding binding, WorkloadRef ref) {
    return binding.getStatus() != null && binding.getStatus().usedBy().contains(ref);
  }

  /**
   * Adds {@code ref} to the Binding's usedBy, which {@code cached} (the informer's copy) does not
   * show it in, and returns once it is stored. A non-empty usedBy takes the append straight away:
   * no read of a list that grows with the fleet. Otherwise, or when the append is refused, the
   * Binding is read fresh first.
   */
  void claim(KubernetesClient client, KVCachePoolBinding cached, WorkloadRef ref) {
    String key = cached.getMetadata().getNamespace() + "/" + cached.getMetadata().getName();
    Group group;
    synchronized (collecting) {
      group = collecting.computeIfAbsent(key, k -> new Group());
      group.refs.add(ref);
    }
    synchronized (writers.computeIfAbsent(key, k -> new Object())) {
      synchronized (collecting) {
        collecting.remove(key, group);
      }
      if (!group.written.isDone()) {
        try {
          append(client, cached, List.copyOf(group.refs));
          group.written.complete(null);
        } catch (RuntimeException e) {
          group.written.completeExceptionally(e);
        }
      }
    }
    try {
      group.written.join();
    } catch (CompletionException e) {
      throw (RuntimeException) e.getCause();
    }
  }

  private void append(KubernetesClient client, KVCachePoolBinding cached, List<WorkloadRef> refs) {
    if (cached.getStatus() != null && !cached.getStatus().usedBy().isEmpty()) {
      try {
        List<WorkloadRef> missing = refs.stream().filter(r -> !holds(cached, r)).toList();
        if (!missing.isEmpty()) {
          patch(client, cached, appends(client, missing));
        }
        return;
      } catch (io.fabric8.kubernetes.client.KubernetesClientException e) {
        if (e.getCode() != 422 && e.getCode() != 409) {
          throw e;
        }
      }
    }
    String namespace = cached.getMetadata().getNamespace();
    String binding = cached.getMetadata().getName();
    Conflicts.retry(
        () -> {
          KVCachePoolBinding latest = read(client, namespace, binding);
          List<WorkloadRef> missing =
              latest == null ? List.of() : refs.stream().filter(r -> !holds(latest, r)).toList();
          if (missing.isEmpty()) {
            return latest;
          }
          if (latest.getStatus() == null || latest.getStatus().usedBy().isEmpty()) {
            latest.setStatus(
                (latest.getStatus() == null
                        ? KVCachePoolBindingStatus.builder().build()
                        : latest.getStatus())
                    .withUsedBy(missing));
            return client.resource(latest).updateStatus();
          }
          return patch(client, latest, appends(client, missing));
        });
  }

  /** Removes {@code ref} from the Binding's usedBy wherever it is there. */
  void release(KubernetesClient client, String namespace, String binding, WorkloadRef ref) {
    Conflicts.retry(
        () -> {
          KVCachePoolBinding latest = read(client, namespace, binding);
          if (latest == null || !holds(latest, ref)) {
            return latest;
          }
          // every occurrence, from the last: two writers may each have appended it
          List<WorkloadRef> usedBy = latest.getStatus().usedBy();
          List<ObjectNode> ops = new ArrayList<>();
          for (int i = usedBy.size() - 1; i >= 0; i--) {
            if (usedBy.get(i).equals(ref)) {
              String at = "/status/usedBy/" + i;
              ops.add(op("test", at).set("value", json(client, ref)));
              ops.add(op("remove", at));
            }
          }
          return patch(client, latest, ops);
        });
  }

  private static KVCachePoolBinding read(KubernetesClient client, String namespace, String name) {
    return client.resources(KVCachePoolBinding.class).inNamespace(namespace).withName(name).get();
  }

  private static KVCachePoolBinding patch(
      KubernetesClient client, KVCachePoolBinding binding, List<ObjectNode> ops) {
    ArrayNode patch = JsonNodeFactory.instance.arrayNode().addAll(ops);
    return (KVCachePoolBinding)
        client
            .resource(PatchTarget.of(binding))
            .subresource("status")
            .patch(PatchContext.of(PatchType.JSON), patch.toString());
  }

  private static ObjectNode op(String op, String path) {
    return JsonNodeFactory.instance.objectNode().put("op", op).put("path", path);
  }

  private static List<ObjectNode> appends(KubernetesClient client, List<WorkloadRef> refs) {
    return refs.stream()
        .<ObjectNode>map(r -> op("add", "/status/usedBy/-").set("value", json(client, r)))
        .toList();
  }

  private static JsonNode json(KubernetesClient client, WorkloadRef ref) {
    return client.getKubernetesSerialization().convertValue(ref, JsonNode.class);
  }
}
