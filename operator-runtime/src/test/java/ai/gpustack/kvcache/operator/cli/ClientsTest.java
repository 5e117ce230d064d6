package ai.gpustack.kvcache.operator.cli;

import static org.assertj.core.api.Assertions.assertThat;

import ai.gpustack.kvcache.resources.KvCacheSerialization;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.client.KubernetesClient;
import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class ClientsTest {
  /** A kubeconfig naming a server nobody answers. */
  static final String KUBECONFIG =
      """
      apiVersion: v1
      kind: Config
      clusters: [{name: c, cluster: {server: "https://127.0.0.1:1"}}]
      users: [{name: u, user: {token: t}}]
      contexts: [{name: x, context: {cluster: c, user: u}}]
      current-context: x
      """;

  /** The operator's informers and the tools never read them; every watched Pod carries 2.3 kB. */
  @Test
  void the_clients_read_a_replica_without_its_managed_fields(@TempDir Path dir) throws Exception {
    String served =
        Files.readString(Path.of("src/test/resources/informers/kwok-replica-v1.36.3.json"));
    assertThat(
            KvCacheSerialization.create()
                .unmarshal(served, Pod.class)
                .getMetadata()
                .getManagedFields())
        .isNotEmpty();
    Path kubeconfig = Files.writeString(dir.resolve("config"), KUBECONFIG);
    for (KubernetesClient client :
        new KubernetesClient[] {
          Clients.oneShot(kubeconfig), Clients.create(kubeconfig, "kvcache-operator")
        }) {
      try (client) {
        Pod pod = client.getKubernetesSerialization().unmarshal(served, Pod.class);
        assertThat(pod.getMetadata().getManagedFields()).isEmpty();
        assertThat(pod.getMetadata().getName()).isEqualTo("md-0000-server-0");
      }
    }
  }
}
