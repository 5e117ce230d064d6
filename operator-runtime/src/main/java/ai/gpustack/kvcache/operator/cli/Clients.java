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

  /**
   * A client for a command that reads once and reports: a cluster that does not answer is said so
   * within seconds, not after the long retry a controller wants.
   */
  static KubernetesClient oneShot(Path kubeconfig) {
    Config config = config(kubeconfig);
    config.setRequestRetryBackoffLimit(1);
    config.setConnectionTimeout(5_000);
    return build(config);
  }

  static KubernetesClient create(Path kubeconfig) {
    return build(config(kubeconfig));
  }

  private static Config config(Path kubeconfig) {
    if (kubeconfig == null) {
      return Config.autoConfigure(null);
    }
    try {
      return Config.fromKubeconfig(Files.readString(kubeconfig));
    } catch (IOException e) {
      throw new UncheckedIOException("cannot read the kubeconfig " + kubeconfig, e);
    }
  }

  private static KubernetesClient build(Config config) {
    return new KubernetesClientBuilder()
        .withConfig(config)
        .withKubernetesSerialization(KvCacheSerialization.create())
        .build();
  }
}
