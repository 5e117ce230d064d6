package ai.gpustack.kvcache.operator.cli;

import ai.gpustack.kvcache.resources.KvCacheSerialization;
import io.fabric8.kubernetes.client.Config;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.KubernetesClientBuilder;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;

/**
 * The one way the tools build a client: a kubeconfig file, or the usual discovery (in-cluster too).
 */
final class Clients {
  private Clients() {}

  static KubernetesClient create(Path kubeconfig) {
    Config config;
    if (kubeconfig != null) {
      try {
        config = Config.fromKubeconfig(Files.readString(kubeconfig));
      } catch (IOException e) {
        throw new UncheckedIOException("cannot read the kubeconfig " + kubeconfig, e);
      }
    } else {
      config = Config.autoConfigure(null);
    }
    return new KubernetesClientBuilder()
        .withConfig(config)
        .withKubernetesSerialization(KvCacheSerialization.create())
        .build();
  }
}
