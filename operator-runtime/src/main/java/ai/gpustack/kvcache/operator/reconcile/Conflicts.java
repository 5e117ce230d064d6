package ai.gpustack.kvcache.operator.reconcile;

import io.fabric8.kubernetes.client.KubernetesClientException;
import java.util.function.Supplier;

/** Retries an optimistic write a few times when another writer got there first (409). */
final class Conflicts {
  private static final int ATTEMPTS = 5;

  private Conflicts() {}

  static <T> T retry(Supplier<T> write) {
    for (int attempt = 1; ; attempt++) {
      try {
        return write.get();
      } catch (KubernetesClientException e) {
        if (e.getCode() != 409 || attempt == ATTEMPTS) {
          throw e;
        }
      }
    }
  }
}
