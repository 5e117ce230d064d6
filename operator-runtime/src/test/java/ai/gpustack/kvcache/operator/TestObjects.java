package ai.gpustack.kvcache.operator;

import static org.assertj.core.api.Assertions.assertThat;

import ai.gpustack.kvcache.api.SettingSpec;
import ai.gpustack.kvcache.api.Settings;
import ai.gpustack.kvcache.resources.Keys;
import ai.gpustack.kvcache.resources.KvCacheSerialization;
import ai.gpustack.kvcache.resources.ModelDeployment;
import ai.gpustack.kvcache.resources.Pods;
import ai.gpustack.kvcache.resources.Setting;
import io.fabric8.kubernetes.api.model.HasMetadata;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.KubernetesClientException;
import io.fabric8.kubernetes.client.utils.KubernetesSerialization;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.function.BooleanSupplier;
import java.util.function.UnaryOperator;

/** Objects the operator tests share, written as YAML, and the one way they are written. */
public final class TestObjects {
  /** A backend, a pool on it, and Binding {@code ns/chat} declaring bfloat16. */
  public static final String STORE = store("ns", "chat");

  /**
   * A backend, a pool on it, and Binding {@code namespace/name} declaring bfloat16 in a domain of
   * the same name.
   */
  public static String store(String namespace, String name) {
    return """
        apiVersion: worker.gpustack.ai/v1
        kind: KVCacheBackend
        metadata: {name: mooncake}
        spec: {connection: {external: {clientEndpoint: "master.kv.svc:50051"}}}
        ---
        apiVersion: worker.gpustack.ai/v1
        kind: KVCachePool
        metadata: {name: shared}
        spec: {backends: [mooncake], quota: {total: 4Ti}}
        ---
        apiVersion: worker.gpustack.ai/v1
        kind: KVCachePoolBinding
        metadata: {name: %2$s, namespace: %1$s}
        spec: {poolRef: {name: shared}, domain: {name: %2$s, blockSize: 16, dtype: bfloat16}, quota: {ceiling: 1Ti}}
        """
        .formatted(namespace, name);
  }

  private TestObjects() {}

  /** Every document of {@code yaml}, read with the library's serialization. */
  public static List<HasMetadata> objects(String yaml) {
    KubernetesSerialization serialization = KvCacheSerialization.create();
    List<HasMetadata> out = new ArrayList<>();
    for (String object : yaml.split("(?m)^---$")) {
      out.add(serialization.unmarshal(object));
    }
    return out;
  }

  /** Polls {@code done} every 100 ms; fails naming {@code what} when {@code patience} runs out. */
  public static void await(String what, Duration patience, BooleanSupplier done) {
    long deadline = System.nanoTime() + patience.toNanos();
    while (!done.getAsBoolean()) {
      assertThat(System.nanoTime())
          .as("still waiting for %s after %s", what, patience)
          .isLessThan(deadline);
      try {
        Thread.sleep(100);
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
        throw new AssertionError(e);
      }
    }
  }

  /**
   * Waits until the operator has taken the ModelDeployment {@code namespace/name} (its finalizer is
   * on) and {@code readyReplicas} of its replicas are Ready. A deployment stored while the Setting
   * is off must be taken before the Setting flips on, as every later update of it is refused then;
   * and a held deployment keeps only the replicas it had, so a test reading them waits for them.
   */
  public static void awaitTaken(
      KubernetesClient client, String namespace, String name, int readyReplicas) {
    await(
        "the operator's finalizer and " + readyReplicas + " Ready replicas on " + name,
        Duration.ofSeconds(60),
        () -> {
          ModelDeployment md =
              client.resources(ModelDeployment.class).inNamespace(namespace).withName(name).get();
          return md != null
              && md.getMetadata().getFinalizers().contains(Keys.DEPLOYMENT_FINALIZER)
              && client
                      .pods()
                      .inNamespace(namespace)
                      .withLabel(Keys.INSTANCE, name)
                      .list()
                      .getItems()
                      .stream()
                      .filter(Pods::ready)
                      .count()
                  >= readyReplicas;
        });
  }

  /** Sets the Setting {@code name} (in the system namespace) to {@code value}. */
  public static void setting(KubernetesClient client, String name, String value) {
    edit(
        client,
        Setting.class,
        Settings.NAMESPACE,
        name,
        s -> {
          s.setSpec(SettingSpec.builder().value(value).build());
          return s;
        });
  }

  /**
   * Edits an object as a user would: the operator writes it too (status, finalizers, a Lease's
   * renewal), so an edit that meets a newer version is read again and retried. A null {@code
   * namespace} names a cluster-scoped object.
   */
  public static <T extends HasMetadata> void edit(
      KubernetesClient client,
      Class<T> kind,
      String namespace,
      String name,
      UnaryOperator<T> change) {
    for (int attempt = 1; ; attempt++) {
      try {
        (namespace == null
                ? client.resources(kind).withName(name)
                : client.resources(kind).inNamespace(namespace).withName(name))
            .edit(change);
        return;
      } catch (KubernetesClientException e) {
        if (e.getCode() != 409 || attempt == 10) {
          throw e;
        }
      }
    }
  }

  /** Creates every document of {@code yaml}, in order; throws when the API server refuses one. */
  public static void apply(KubernetesClient client, String yaml) {
    for (String doc : yaml.split("(?m)^---$")) {
      if (!doc.isBlank()) {
        HasMetadata o = client.getKubernetesSerialization().unmarshal(doc);
        client.resource(o).create();
      }
    }
  }
}
