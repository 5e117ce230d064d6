package ai.gpustack.kvcache.operator.cli;

import ai.gpustack.kvcache.admission.Admission;
import ai.gpustack.kvcache.cluster.InformerClusterView;
import ai.gpustack.kvcache.operator.HealthServer;
import ai.gpustack.kvcache.operator.Metrics;
import ai.gpustack.kvcache.webhook.ReloadingKeyManager;
import ai.gpustack.kvcache.webhook.WebhookServer;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.KubernetesClientException;
import io.micrometer.prometheusmetrics.PrometheusMeterRegistry;
import java.io.UncheckedIOException;
import java.nio.file.Path;
import java.util.concurrent.Callable;
import java.util.concurrent.CountDownLatch;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

/** {@code kvcache webhook}: the admission webhook alone. */
@Command(
    name = "webhook",
    mixinStandardHelpOptions = true,
    description = {
      "Serves the admission webhook alone over HTTPS, reading cluster state through informers"
          + " (kubeconfig, or in-cluster). The certificate and key are re-read when they change.",
      "Exit codes: 0 stopped by a signal; 1 the cluster could not be read at start; 2 bad"
          + " arguments, an unreadable kubeconfig or certificate."
    })
final class WebhookCommand implements Callable<Integer> {
  @Option(names = "--tls-cert", required = true, description = "PEM certificate (chain) file.")
  Path cert;

  @Option(names = "--tls-key", required = true, description = "PEM private key file (RSA or EC).")
  Path key;

  @Option(
      names = "--listen",
      defaultValue = "0.0.0.0:9443",
      description = "host:port to listen on (default ${DEFAULT-VALUE}).")
  String listen;

  @Option(
      names = "--health-listen",
      defaultValue = "0.0.0.0:8080",
      description =
          "host:port of /healthz, /readyz (the cluster view synced) and /metrics (default"
              + " ${DEFAULT-VALUE}).")
  String healthListen;

  @Option(
      names = "--kubeconfig",
      description = "Kubeconfig file; in-cluster or ~/.kube/config when absent.")
  Path kubeconfig;

  @CommandLine.Spec CommandLine.Model.CommandSpec spec;

  @Override
  @SuppressWarnings("try") // the health server only has to run meanwhile
  public Integer call() throws Exception {
    ReloadingKeyManager keys;
    try {
      keys = new ReloadingKeyManager(cert, key);
    } catch (IllegalArgumentException e) {
      spec.commandLine().getErr().println("kvcache webhook: " + e.getMessage());
      return 2;
    }
    KubernetesClient client;
    try {
      client = Clients.create(kubeconfig, "kvcache-webhook");
    } catch (UncheckedIOException e) {
      spec.commandLine().getErr().println("kvcache webhook: " + e.getMessage());
      return 2;
    }
    CountDownLatch stop = new CountDownLatch(1);
    PrometheusMeterRegistry registry = Metrics.registry();
    try (client;
        InformerClusterView view = InformerClusterView.start(client);
        WebhookServer server =
            WebhookServer.builder()
                .address(Listen.parse(listen))
                .keys(keys)
                .admission(new Admission(Engines.load(spec.commandLine()), view))
                .meterRegistry(registry)
                .start();
        HealthServer health =
            HealthServer.start(Listen.parse(healthListen), () -> true, view::synced, registry)) {
      Runtime.getRuntime().addShutdownHook(new Thread(stop::countDown));
      spec.commandLine()
          .getErr()
          .println(
              "webhook serving on https://"
                  + server.address().getHostString()
                  + ":"
                  + server.address().getPort());
      stop.await();
    } catch (KubernetesClientException e) {
      spec.commandLine().getErr().println("kvcache webhook: " + Clients.unreachable(client, e));
      return 1;
    }
    return 0;
  }
}
