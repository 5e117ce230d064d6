package ai.gpustack.kvcache.operator.migrate;

import ai.gpustack.kvcache.api.Settings;
import ai.gpustack.kvcache.resources.KVCacheBackend;
import ai.gpustack.kvcache.resources.KVCachePool;
import ai.gpustack.kvcache.resources.KVCachePoolBinding;
import ai.gpustack.kvcache.resources.ModelDeployment;
import ai.gpustack.kvcache.resources.Setting;
import io.fabric8.kubernetes.api.model.HasMetadata;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.KubernetesClientException;
import java.net.HttpURLConnection;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.function.Supplier;

/**
 * What a migration of a Binding in {@code namespace} reads: every Binding, pool and backend (the
 * domain claim spans namespaces), the namespace's deployments, Pods and Pod-template workloads, and
 * the Settings. Immutable.
 */
public record Snapshot(
    String namespace,
    List<KVCachePoolBinding> bindings,
    List<KVCachePool> pools,
    List<KVCacheBackend> backends,
    List<ModelDeployment> deployments,
    List<Pod> pods,
    List<HasMetadata> workloads,
    List<Setting> settings) {
  public Snapshot {
    bindings = List.copyOf(bindings);
    pools = List.copyOf(pools);
    backends = List.copyOf(backends);
    deployments = List.copyOf(deployments);
    pods = List.copyOf(pods);
    workloads = List.copyOf(workloads);
    settings = List.copyOf(settings);
  }

  /** Reads the snapshot; a {@link KubernetesClientException} when the cluster cannot be read. */
  public static Snapshot read(KubernetesClient client, String namespace) {
    List<HasMetadata> workloads = new ArrayList<>();
    workloads.addAll(
        optional(() -> client.apps().deployments().inNamespace(namespace).list().getItems()));
    workloads.addAll(
        optional(() -> client.apps().statefulSets().inNamespace(namespace).list().getItems()));
    workloads.addAll(
        optional(() -> client.apps().daemonSets().inNamespace(namespace).list().getItems()));
    workloads.addAll(
        optional(() -> client.apps().replicaSets().inNamespace(namespace).list().getItems()));
    workloads.addAll(
        optional(() -> client.batch().v1().jobs().inNamespace(namespace).list().getItems()));
    workloads.addAll(
        optional(() -> client.batch().v1().cronjobs().inNamespace(namespace).list().getItems()));
    return new Snapshot(
        namespace,
        client.resources(KVCachePoolBinding.class).inAnyNamespace().list().getItems(),
        client.resources(KVCachePool.class).list().getItems(),
        client.resources(KVCacheBackend.class).list().getItems(),
        client.resources(ModelDeployment.class).inNamespace(namespace).list().getItems(),
        client.pods().inNamespace(namespace).list().getItems(),
        workloads,
        client.resources(Setting.class).inNamespace(Settings.NAMESPACE).list().getItems());
  }

  /** A kind the API server does not serve holds nothing to migrate. */
  private static List<? extends HasMetadata> optional(Supplier<List<? extends HasMetadata>> list) {
    try {
      return list.get();
    } catch (KubernetesClientException e) {
      if (e.getCode() == HttpURLConnection.HTTP_NOT_FOUND) {
        return List.of();
      }
      throw e;
    }
  }

  public Optional<KVCachePoolBinding> binding(String name) {
    return bindings.stream()
        .filter(b -> namespace.equals(b.getMetadata().getNamespace()))
        .filter(b -> b.getMetadata().getName().equals(name))
        .findFirst();
  }

  public Optional<ModelDeployment> deployment(String name) {
    return deployments.stream().filter(d -> d.getMetadata().getName().equals(name)).findFirst();
  }

  /** Every object, for a cluster view. */
  List<HasMetadata> objects() {
    List<HasMetadata> all = new ArrayList<>();
    all.addAll(bindings);
    all.addAll(pools);
    all.addAll(backends);
    all.addAll(deployments);
    all.addAll(pods);
    all.addAll(settings);
    return all;
  }
}
