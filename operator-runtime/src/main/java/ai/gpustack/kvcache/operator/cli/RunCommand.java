package ai.gpustack.kvcache.operator.cli;

import ai.gpustack.kvcache.admission.Admission;
import ai.gpustack.kvcache.cluster.InformerClusterView;
import ai.gpustack.kvcache.operator.KvCacheOperator;
import ai.gpustack.kvcache.operator.Metrics;
import ai.gpustack.kvcache.operator.certs.CertificateKeeper;
import ai.gpustack.kvcache.spi.EngineRegistry;
import ai.gpustack.kvcache.webhook.ReloadingKeyManager;
import ai.gpustack.kvcache.webhook.WebhookServer;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.KubernetesClientException;
import io.micrometer.prometheusmetrics.PrometheusMeterRegistry;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.UnknownHostException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Duration;
import java.util.List;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.Callable;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.function.BooleanSupplier;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

/** {@code kvcache run}: the reference operator against a real cluster. */
@Command(
    name = "run",
    mixinStandardHelpOptions = true,
    description = {
      "Runs the reference operator against a cluster (kubeconfig, or in-cluster), with leader"
          + " election on a Lease in gpustack-system, health and metrics on --health-listen, and"
          + " the admission webhook in the same process unless --no-webhook.",
      "Exit codes: 0 stopped by a signal; 1 the cluster could not be read at start, or another"
          + " identity took the lease this process held (a restart rejoins as a follower); 2 bad"
          + " arguments, an unreadable kubeconfig or certificate."
    })
final class RunCommand implements Callable<Integer> {
  @Option(
      names = "--kubeconfig",
      description = "Kubeconfig file; in-cluster or ~/.kube/config when absent.")
  Path kubeconfig;

  @Option(
      names = "--no-webhook",
      description = "Do not serve the admission webhook in this process.")
  boolean noWebhook;

  @Option(
      names = "--no-observe",
      description =
          "Do not read what the replicas' engines report of their KV-cache dtype (no"
              + " DtypeObserved condition, no pods/proxy reads).")
  boolean noObserve;

  @Option(
      names = "--tls-cert",
      description = "The webhook's PEM certificate (required unless --no-webhook).")
  Path cert;

  @Option(
      names = "--tls-key",
      description = "The webhook's PEM key (required unless --no-webhook).")
  Path key;

  @Option(
      names = "--self-signed-webhook-cert",
      description =
          "Serve the webhook with a certificate from a CA the operator keeps in Secret"
              + " gpustack-system/kvcache-webhook-tls, and keep both webhook configurations'"
              + " caBundle equal to it (instead of --tls-cert and --tls-key, e.g. from"
              + " cert-manager).")
  boolean selfSigned;

  @Option(
      names = "--webhook-listen",
      defaultValue = "0.0.0.0:9443",
      description = "Webhook host:port (default ${DEFAULT-VALUE}).")
  String webhookListen;

  @Option(
      names = "--health-listen",
      defaultValue = "0.0.0.0:8080",
      description = "/healthz, /readyz and /metrics host:port (default ${DEFAULT-VALUE}).")
  String healthListen;

  @Option(
      names = "--namespaces",
      split = ",",
      paramLabel = "NS",
      description =
          "Reconcile deployments and Bindings, and create and watch Pods, in these namespaces only"
              + " (default: every namespace): the ServiceAccount then needs the ClusterRole"
              + " kvcache-operator-workloads bound in each of them, not cluster-wide.")
  Set<String> namespaces = Set.of();

  @Option(
      names = "--identity",
      description = "Leader-election identity (default: $POD_NAME, else the host name).")
  String identity;

  @CommandLine.Spec CommandLine.Model.CommandSpec spec;

  /** Counted down once everything is closed: the shutdown hook waits for it. */
  private final CountDownLatch closed = new CountDownLatch(1);

  @Override
  public Integer call() throws Exception {
    try {
      return run();
    } finally {
      closed.countDown();
    }
  }

  private Integer run() throws Exception {
    requireOneCertificateSource();
    ReloadingKeyManager fileKeys = null;
    if (!noWebhook && (cert != null || key != null)) {
      try {
        fileKeys = new ReloadingKeyManager(cert, key);
      } catch (IllegalArgumentException e) {
        spec.commandLine().getErr().println("kvcache run: " + e.getMessage());
        return 2;
      }
    }
    String id = leaseIdentity();
    PrometheusMeterRegistry registry = Metrics.registry();
    EngineRegistry engines = Engines.load(spec.commandLine());
    KubernetesClient client;
    try {
      client = Clients.create(kubeconfig, "kvcache-operator/" + id);
    } catch (UncheckedIOException e) {
      spec.commandLine().getErr().println("kvcache run: " + e.getMessage());
      return 2;
    }
    InformerClusterView view = null;
    WebhookServer webhook = null;
    try (client;
        CertificateKeeper keeper = noWebhook || !selfSigned ? null : startKeeper(client)) {
      // The webhook listens before the operator writes anything: on a first install the API server
      // calls it (through the Service, so once this process is Ready) for the Settings the
      // operator creates.
      if (!noWebhook) {
        ReloadingKeyManager keys =
            keeper != null
                ? new ReloadingKeyManager(keeper.certFile(), keeper.keyFile())
                : fileKeys;
        view = InformerClusterView.start(client, namespaces);
        webhook = startWebhook(keys, engines, view, registry);
      }
      BooleanSupplier webhookReady = view == null ? () -> true : view::synced;
      runUntilStopped(client, engines, registry, id, webhookReady, webhook != null);
    } catch (KubernetesClientException e) {
      spec.commandLine().getErr().println("kvcache run: " + Clients.unreachable(client, e));
      return 1;
    } finally {
      if (webhook != null) {
        webhook.close();
      }
      if (view != null) {
        view.close();
      }
    }
    return 0;
  }

  /** The webhook's certificate comes from --tls-cert and --tls-key or is self-signed, not both. */
  private void requireOneCertificateSource() {
    boolean files = cert != null || key != null;
    if (!noWebhook && selfSigned == files) {
      throw new CommandLine.ParameterException(
          spec.commandLine(),
          files
              ? "--self-signed-webhook-cert issues the certificate that --tls-cert and --tls-key"
                  + " name: pass one or the other"
              : "the webhook needs --tls-cert and --tls-key, or --self-signed-webhook-cert (or"
                  + " pass --no-webhook)");
    }
    if (!noWebhook && files && (cert == null || key == null)) {
      throw new CommandLine.ParameterException(
          spec.commandLine(), "--tls-cert and --tls-key go together");
    }
  }

  /** --identity, else $POD_NAME, else the host name. */
  private String leaseIdentity() throws UnknownHostException {
    return identity != null
        ? identity
        : Optional.ofNullable(System.getenv("POD_NAME"))
            .orElse(InetAddress.getLocalHost().getHostName());
  }

  private CertificateKeeper startKeeper(KubernetesClient client) throws IOException {
    return CertificateKeeper.start(
        client,
        loopback(Listen.parse(webhookListen)),
        Files.createTempDirectory("kvcache-webhook-"),
        Clock.systemUTC());
  }

  private WebhookServer startWebhook(
      ReloadingKeyManager keys,
      EngineRegistry engines,
      InformerClusterView view,
      PrometheusMeterRegistry registry) {
    return WebhookServer.builder()
        .address(Listen.parse(webhookListen))
        .keys(keys)
        .admission(new Admission(engines, view))
        .meterRegistry(registry)
        .start();
  }

  /** Runs the operator until a signal; a lost lease halts the process (exit code 1) instead. */
  private void runUntilStopped(
      KubernetesClient client,
      EngineRegistry engines,
      PrometheusMeterRegistry registry,
      String id,
      BooleanSupplier webhookReady,
      boolean webhookServed)
      throws InterruptedException {
    CountDownLatch stop = new CountDownLatch(1);
    try (KvCacheOperator operator =
        KvCacheOperator.start(
            client,
            engines,
            registry,
            new KvCacheOperator.Options(
                Optional.of(id),
                Duration.ofSeconds(15),
                Optional.of(Listen.parse(healthListen)),
                System.getenv(),
                Clock.systemUTC(),
                !noObserve,
                KvCacheOperator.LeaseLost.EXIT,
                webhookReady,
                namespaces))) {
      // The JVM exits once its hooks return: this one holds it until the operator has stopped its
      // controllers and handed the lease on, and the webhook has closed (a SIGTERM's grace period
      // is 30 s).
      Runtime.getRuntime()
          .addShutdownHook(
              new Thread(
                  () -> {
                    stop.countDown();
                    try {
                      closed.await(25, TimeUnit.SECONDS);
                    } catch (InterruptedException e) {
                      Thread.currentThread().interrupt();
                    }
                  }));
      spec.commandLine()
          .getErr()
          .println(
              "kvcache operator running as "
                  + id
                  + (operator.ready() ? "" : " (syncing)")
                  + (webhookServed ? "; webhook on " + webhookListen : ""));
      stop.await();
    }
  }

  /**
   * The webhook address as the certificate must name it, when the webhook listens on a loopback
   * address: the API server then calls it by that address (a webhook configuration's {@code url},
   * as in development against a local control plane). A wildcard or routable address adds nothing;
   * the API server calls the webhook by its Service's names.
   */
  private static List<String> loopback(InetSocketAddress listen) {
    return listen.getAddress() != null && listen.getAddress().isLoopbackAddress()
        ? List.of(listen.getAddress().getHostAddress())
        : List.of();
  }
}
