package ai.gpustack.kvcache.operator.cli;

import ai.gpustack.kvcache.observe.PodProxyFetcher;
import ai.gpustack.kvcache.resources.KvCacheSerialization;
import io.fabric8.kubernetes.client.Config;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.KubernetesClientBuilder;
import io.fabric8.kubernetes.client.KubernetesClientException;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletionException;

/**
 * The one way the tools build a client: a kubeconfig file, or the usual discovery (in-cluster too).
 * Nothing here reads an object's managed fields, so the clients skip them ({@link
 * KvCacheSerialization#withoutManagedFields}).
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

  /**
   * A client for a long-running process; {@code userAgent} names it in the API server's audit log
   * (which of two operator replicas wrote an object).
   */
  static KubernetesClient create(Path kubeconfig, String userAgent) {
    Config config = config(kubeconfig);
    config.setUserAgent(userAgent);
    return build(config);
  }

  /**
   * Why {@code client} could not read its cluster, in one line: the server's address and either the
   * API server's refusal ({@code HTTP 403 Forbidden: ...}) or the connection's failure ({@code
   * ConnectException (UnresolvedAddressException)}).
   */
  static String unreachable(KubernetesClient client, KubernetesClientException e) {
    List<String> causes = new ArrayList<>();
    for (Throwable t = e; t != null; t = t.getCause() == t ? null : t.getCause()) {
      if (t instanceof KubernetesClientException k && k.getStatus() != null) {
        causes =
            List.of(
                "HTTP "
                    + k.getCode()
                    + " "
                    + k.getStatus().getReason()
                    + ": "
                    + k.getStatus().getMessage());
        break;
      }
      if (!(t instanceof KubernetesClientException) && !(t instanceof CompletionException)) {
        String message = String.valueOf(t.getMessage()).lines().findFirst().orElse("").strip();
        causes.add(
            t.getClass().getSimpleName()
                + (t.getMessage() == null || message.isEmpty() ? "" : ": " + message));
      }
    }
    String why =
        causes.isEmpty()
            ? String.valueOf(e.getMessage()).lines().findFirst().orElse("")
            : causes.get(0)
                + (causes.size() > 1
                    ? " (" + String.join(", ", causes.subList(1, causes.size())) + ")"
                    : "");
    return "cannot read the cluster at " + client.getMasterUrl() + ": " + why;
  }

  /**
   * A client for the in-process operator of a sandbox serving {@code kubeconfig} (its text), named
   * {@code userAgent} in the sandbox's audit log.
   */
  static KubernetesClient fromKubeconfig(String kubeconfig, String userAgent) {
    Config config = Config.fromKubeconfig(kubeconfig);
    config.setUserAgent(userAgent);
    return build(config);
  }

  /**
   * The tools' reader of replicas through the Pod proxy: {@code client}'s identity, answers treated
   * as the operator treats them (no redirect followed, one deadline, a cap).
   */
  static PodProxyFetcher podProxy(KubernetesClient client) {
    return new PodProxyFetcher(
        client.getConfiguration(), PodProxyFetcher.DEADLINE, PodProxyFetcher.MAX_BYTES);
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
        .withKubernetesSerialization(KvCacheSerialization.withoutManagedFields())
        .build();
  }
}
