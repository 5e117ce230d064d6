package ai.gpustack.kvcache.operator.preflight;

import ai.gpustack.kvcache.resources.KVCacheBackend;
import ai.gpustack.kvcache.resources.KVCachePool;
import ai.gpustack.kvcache.resources.KVCachePoolBinding;
import ai.gpustack.kvcache.resources.Keys;
import ai.gpustack.kvcache.resources.ModelDeployment;
import ai.gpustack.kvcache.resources.Owners;
import ai.gpustack.kvcache.resources.Setting;
import io.fabric8.kubernetes.api.model.HasMetadata;
import io.fabric8.kubernetes.api.model.KubernetesResourceList;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.KubernetesClientException;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import java.util.Optional;
import java.util.Set;
import java.util.function.Supplier;
import java.util.stream.Collectors;

/**
 * What preflight reads: the kvcache objects, the ModelDeployments, every Pod template that could
 * opt into injection, and the operator's replicas (to tell which will roll).
 */
public record Inventory(String source, List<HasMetadata> objects) {

  /** Thrown when the cluster cannot be read; the message names what and why. */
  public static final class Unreadable extends RuntimeException {
    private static final long serialVersionUID = 1L;

    Unreadable(String message, Throwable cause) {
      super(message, cause, false, false);
    }
  }

  /** Everything preflight reads, from the cluster {@code client} points at. */
  public static Inventory fromCluster(KubernetesClient client) {
    List<HasMetadata> objects = new ArrayList<>();
    objects.addAll(
        read(
            "kvcachepoolbindings",
            () -> client.resources(KVCachePoolBinding.class).inAnyNamespace().list()));
    objects.addAll(read("kvcachepools", () -> client.resources(KVCachePool.class).list()));
    objects.addAll(read("kvcachebackends", () -> client.resources(KVCacheBackend.class).list()));
    objects.addAll(read("settings", () -> client.resources(Setting.class).inAnyNamespace().list()));
    objects.addAll(
        read(
            "modeldeployments",
            () -> client.resources(ModelDeployment.class).inAnyNamespace().list()));
    objects.addAll(read("deployments", () -> client.apps().deployments().inAnyNamespace().list()));
    objects.addAll(
        read("statefulsets", () -> client.apps().statefulSets().inAnyNamespace().list()));
    objects.addAll(read("daemonsets", () -> client.apps().daemonSets().inAnyNamespace().list()));
    objects.addAll(read("replicasets", () -> client.apps().replicaSets().inAnyNamespace().list()));
    objects.addAll(read("jobs", () -> client.batch().v1().jobs().inAnyNamespace().list()));
    objects.addAll(read("cronjobs", () -> client.batch().v1().cronjobs().inAnyNamespace().list()));
    objects.addAll(read("pods", () -> client.pods().inAnyNamespace().list()));
    String context =
        Optional.ofNullable(client.getConfiguration().getCurrentContext())
            .map(c -> "context " + c.getName())
            .orElse(client.getMasterUrl().toString());
    return new Inventory("cluster (" + context + ")", objects);
  }

  /** The items of one list; a kind the cluster does not serve (its CRD not installed) is empty. */
  private static List<? extends HasMetadata> read(
      String plural, Supplier<? extends KubernetesResourceList<? extends HasMetadata>> list) {
    try {
      return list.get().getItems();
    } catch (KubernetesClientException e) {
      if (e.getCode() == 404) {
        return List.of();
      }
      String why =
          e.getCode() == 403
              ? "forbidden: preflight needs list on " + plural + " in every namespace"
              : Optional.ofNullable(e.getMessage())
                  .orElse(e.toString())
                  .lines()
                  .findFirst()
                  .orElse("");
      throw new Unreadable("cannot list " + plural + ": " + why, e);
    }
  }

  /** Objects read from manifests; a namespaced one without a namespace is in {@code default}. */
  public static Inventory fromFiles(String source, List<HasMetadata> objects) {
    for (HasMetadata o : objects) {
      if (o.getMetadata().getNamespace() == null
          && !(o instanceof KVCachePool || o instanceof KVCacheBackend)) {
        o.getMetadata().setNamespace("default");
      }
    }
    return new Inventory(source, objects);
  }

  <T extends HasMetadata> List<T> all(Class<T> type) {
    return objects.stream().filter(type::isInstance).map(type::cast).toList();
  }

  /**
   * Every Pod template, once: an object whose controller is also in the inventory is reached
   * through that controller (a Deployment's ReplicaSets and Pods, a CronJob's Jobs).
   */
  List<PodTemplateOwner> workloads() {
    Set<String> present =
        objects.stream()
            .map(o -> key(o.getKind(), namespace(o), o.getMetadata().getName()))
            .collect(Collectors.toSet());
    return objects.stream()
        .filter(
            o ->
                Owners.controller(o)
                    .map(c -> !present.contains(key(c.getKind(), namespace(o), c.getName())))
                    .orElse(true))
        .filter(o -> !isReplica(o))
        .map(PodTemplateOwner::of)
        .flatMap(Optional::stream)
        .toList();
  }

  /** The operator's replicas of {@code deployment}. */
  List<Pod> replicas(ModelDeployment deployment) {
    return all(Pod.class).stream()
        .filter(p -> Objects.equals(namespace(p), namespace(deployment)))
        .filter(p -> p.getMetadata().getLabels() != null)
        .filter(
            p ->
                deployment
                    .getMetadata()
                    .getName()
                    .equals(p.getMetadata().getLabels().get(Keys.INSTANCE)))
        .filter(p -> p.getMetadata().getLabels().containsKey(Keys.POD_ORDINAL))
        .toList();
  }

  /** A ModelDeployment's replica: its deployment, not its template, is what preflight reads. */
  private static boolean isReplica(HasMetadata o) {
    return o instanceof Pod p
        && p.getMetadata().getLabels() != null
        && p.getMetadata().getLabels().containsKey(Keys.POD_ORDINAL)
        && p.getMetadata().getLabels().containsKey(Keys.INSTANCE);
  }

  static String namespace(HasMetadata o) {
    return Optional.ofNullable(o.getMetadata().getNamespace()).orElse("default");
  }

  private static String key(String kind, String namespace, String name) {
    return kind + "/" + namespace + "/" + name;
  }
}
