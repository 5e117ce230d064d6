package ai.gpustack.kvcache.admission;

import java.util.Arrays;
import java.util.List;
import java.util.Optional;

/**
 * One webhook route: its HTTPS path, the kind and operations it admits, and whether it mutates.
 * Each route has one {@link Rule}; {@link Admission} routes a review to it.
 */
public enum Route {
  KV_CACHE_POOL_BINDING(
      "/validate/kvcachepoolbindings",
      "worker.gpustack.ai",
      "KVCachePoolBinding",
      "kvcachepoolbindings",
      false,
      "CREATE",
      "UPDATE"),
  KV_CACHE_POOL(
      "/validate/kvcachepools",
      "worker.gpustack.ai",
      "KVCachePool",
      "kvcachepools",
      false,
      "CREATE",
      "UPDATE"),
  KV_CACHE_BACKEND(
      "/validate/kvcachebackends",
      "worker.gpustack.ai",
      "KVCacheBackend",
      "kvcachebackends",
      false,
      "CREATE",
      "UPDATE"),
  MODEL_DEPLOYMENT(
      "/validate/modeldeployments",
      "worker.gpustack.ai",
      "ModelDeployment",
      "modeldeployments",
      false,
      "CREATE",
      "UPDATE"),
  SETTING("/validate/settings", "gpustack.ai", "Setting", "settings", false, "CREATE", "UPDATE"),
  /** Mutating: attaches opted-in Pods to their Binding's cache at creation. */
  POD_INJECTION("/mutate/pods", "", "Pod", "pods", true, "CREATE"),
  /** Validating, failurePolicy Ignore: freezes the inject label and the injection record. */
  POD_FREEZE("/validate/pods", "", "Pod", "pods", false, "UPDATE");

  private final String path;
  private final String group;
  private final String kind;
  private final String resource;
  private final boolean mutating;
  private final List<String> operations;

  Route(
      String path,
      String group,
      String kind,
      String resource,
      boolean mutating,
      String... operations) {
    this.path = path;
    this.group = group;
    this.kind = kind;
    this.resource = resource;
    this.mutating = mutating;
    this.operations = List.of(operations);
  }

  public String path() {
    return path;
  }

  public String group() {
    return group;
  }

  public String kind() {
    return kind;
  }

  public String resource() {
    return resource;
  }

  /** Whether the kind lives in namespaces (the pool and backend are cluster-scoped). */
  public boolean namespaced() {
    return this != KV_CACHE_POOL && this != KV_CACHE_BACKEND;
  }

  public boolean mutating() {
    return mutating;
  }

  public List<String> operations() {
    return operations;
  }

  public static Optional<Route> forPath(String path) {
    return Arrays.stream(values()).filter(h -> h.path.equals(path)).findFirst();
  }

  /** The route an API server would call for {@code kind} and {@code operation}. */
  public static Optional<Route> forKind(String kind, String operation) {
    return Arrays.stream(values())
        .filter(h -> h.kind.equals(kind) && h.operations.contains(operation))
        .findFirst();
  }
}
