package ai.gpustack.kvcache.operator.reconcile;

import io.fabric8.kubernetes.client.KubernetesClientException;
import java.util.function.Supplier;

/**
 * Retries an optimistic write when another writer got there first: a 409 on a stale
 * resourceVersion, or a 422 when a JSON Patch {@code test} no longer holds.
 */
final class Conflicts {
  private static final int ATTEMPTS = 8;

  private Conflicts() {}

  static <T> T retry(Supplier<T> write) {
    for (int attempt = 1; ; attempt++) {
      try {
        return write.get();
      } catch (KubernetesClientException e) {
        if ((e.getCode() != 409 && e.getCode() != 422) || attempt == ATTEMPTS) {
          throw e;
        }
      }
    }
  }
}
