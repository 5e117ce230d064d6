package ai.gpustack.kvcache.operator.reconcile;

import ai.gpustack.kvcache.api.KVCachePoolBindingStatus;
import ai.gpustack.kvcache.api.WorkloadRef;
import ai.gpustack.kvcache.resources.KVCachePoolBinding;
import io.fabric8.kubernetes.client.KubernetesClient;
import java.util.ArrayList;
import java.util.List;

/**
 * A workload's claim on its Binding, kept in the Binding's {@code status.usedBy}. Written with the
 * object's resourceVersion and retried on conflict, because every workload of a Binding writes the
 * same list.
 */
final class Claims {
  private final KubernetesClient client;

  Claims(KubernetesClient client) {
    this.client = client;
  }

  static boolean holds(KVCachePoolBinding binding, WorkloadRef ref) {
    return binding.getStatus() != null && binding.getStatus().usedBy().contains(ref);
  }

  /** Adds {@code ref} to the Binding's usedBy unless it is there. */
  void claim(String namespace, String binding, WorkloadRef ref) {
    change(namespace, binding, ref, true);
  }

  /** Removes {@code ref} from the Binding's usedBy if it is there. */
  void release(String namespace, String binding, WorkloadRef ref) {
    change(namespace, binding, ref, false);
  }

  private void change(String namespace, String name, WorkloadRef ref, boolean add) {
    Conflicts.retry(
        () -> {
          KVCachePoolBinding latest =
              client
                  .resources(KVCachePoolBinding.class)
                  .inNamespace(namespace)
                  .withName(name)
                  .get();
          if (latest == null || holds(latest, ref) == add) {
            return latest;
          }
          KVCachePoolBindingStatus status =
              latest.getStatus() == null
                  ? KVCachePoolBindingStatus.builder().build()
                  : latest.getStatus();
          List<WorkloadRef> usedBy = new ArrayList<>(status.usedBy());
          if (add) {
            usedBy.add(ref);
          } else {
            usedBy.remove(ref);
          }
          usedBy.sort(WorkloadRef.ORDER);
          latest.setStatus(status.withUsedBy(usedBy));
          return client.resource(latest).updateStatus();
        });
  }
}
