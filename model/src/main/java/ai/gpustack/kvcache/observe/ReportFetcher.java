package ai.gpustack.kvcache.observe;

import io.fabric8.kubernetes.api.model.Pod;
import java.util.concurrent.CompletableFuture;

/**
 * Reads one path on one port of a replica, asynchronously. The future never fails: a failure is a
 * {@link Fetch} saying why.
 */
@FunctionalInterface
public interface ReportFetcher {
  CompletableFuture<Fetch> fetch(Pod pod, int port, String path);
}
