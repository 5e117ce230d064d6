package ai.gpustack.kvcache.observe;

import io.fabric8.kubernetes.api.model.Pod;

/** Reads one path on one port of a replica. Implementations never throw; they answer a failure. */
@FunctionalInterface
public interface ReportFetcher {
  Fetch fetch(Pod pod, int port, String path);
}
