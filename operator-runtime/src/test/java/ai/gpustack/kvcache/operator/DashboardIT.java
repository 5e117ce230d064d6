package ai.gpustack.kvcache.operator;

import static org.assertj.core.api.Assertions.assertThat;

import ai.gpustack.kvcache.admission.Admission;
import ai.gpustack.kvcache.cluster.MemoryClusterView;
import ai.gpustack.kvcache.sandbox.SandboxServer;
import ai.gpustack.kvcache.spi.EngineRegistry;
import ai.gpustack.kvcache.webhook.ReloadingKeyManager;
import ai.gpustack.kvcache.webhook.TestCertificates;
import ai.gpustack.kvcache.webhook.WebhookServer;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.fabric8.kubernetes.api.model.ConfigMap;
import io.fabric8.kubernetes.api.model.ConfigMapBuilder;
import io.javaoperatorsdk.operator.Operator;
import io.javaoperatorsdk.operator.api.reconciler.Context;
import io.javaoperatorsdk.operator.api.reconciler.ControllerConfiguration;
import io.javaoperatorsdk.operator.api.reconciler.Reconciler;
import io.javaoperatorsdk.operator.api.reconciler.UpdateControl;
import io.javaoperatorsdk.operator.monitoring.micrometer.MicrometerMetrics;
import io.micrometer.prometheusmetrics.PrometheusMeterRegistry;
import java.net.InetSocketAddress;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.TreeSet;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The Grafana dashboard under {@code examples/grafana} queries only metrics a running {@code
 * kvcache run} exposes: every series it names appears on {@code /metrics} once the operator has
 * reconciled and the webhook has answered a review.
 */
class DashboardIT {
  static final Path DASHBOARD = Path.of("..", "examples", "grafana", "kvcache-dashboard.json");
  static final Pattern METRIC = Pattern.compile("\\b(kvcache|operator_sdk|jvm|process)_[a-z_.*]+");

  @TempDir Path dir;

  /** The metric names (or name patterns) the dashboard's queries use. */
  static Set<String> queried() throws Exception {
    JsonNode dashboard = new ObjectMapper().readTree(DASHBOARD.toFile());
    Set<String> names = new TreeSet<>();
    for (JsonNode expr : dashboard.findValues("expr")) {
      Matcher m = METRIC.matcher(expr.asText());
      while (m.find()) {
        names.add(m.group());
      }
    }
    return names;
  }

  @Test
  void every_series_the_dashboard_queries_is_exposed() throws Exception {
    Set<String> queried = queried();
    assertThat(queried).hasSizeGreaterThan(8);
    PrometheusMeterRegistry registry = Metrics.registry();
    TestCertificates.Pair pair = TestCertificates.write(dir, "localhost", "EC");
    try (SandboxServer server = SandboxServer.start(EngineRegistry.load(), 0);
        KvCacheOperator operator =
            KvCacheOperator.start(
                server.client(),
                EngineRegistry.load(),
                registry,
                new KvCacheOperator.Options(
                    Optional.empty(),
                    Duration.ofSeconds(2),
                    Optional.empty(),
                    Map.of(),
                    Clock.systemUTC(),
                    true,
                    KvCacheOperator.LeaseLost.STOP_RECONCILING,
                    () -> true));
        WebhookServer webhook =
            WebhookServer.builder()
                .address(new InetSocketAddress("127.0.0.1", 0))
                .keys(new ReloadingKeyManager(pair.cert(), pair.key()))
                .admission(new Admission(EngineRegistry.load(), MemoryClusterView.of()))
                .meterRegistry(registry)
                .start()) {
      assertThat(operator.ready()).isTrue();
      TestObjects.apply(
          server.client(),
          """
                      apiVersion: worker.gpustack.ai/v1
                      kind: ModelDeployment
                      metadata: {name: solo, namespace: ns}
                      spec: {model: {name: m}, engine: {name: SGLang}, roles: [{name: server}]}
                      """);
      HttpClient https = TestCertificates.client(List.of(pair.certificate()));
      String review =
          """
          {"apiVersion":"admission.k8s.io/v1","kind":"AdmissionReview","request":{"uid":"1",
           "kind":{"group":"","version":"v1","kind":"Pod"},"operation":"CREATE","namespace":"ns",
           "object":{"apiVersion":"v1","kind":"Pod","metadata":{"name":"p","namespace":"ns"},
           "spec":{"containers":[{"name":"c","image":"i"}]}}}}
          """;
      HttpResponse<String> answer =
          https.send(
              HttpRequest.newBuilder(
                      URI.create(
                          "https://localhost:" + webhook.address().getPort() + "/mutate/pods"))
                  .header("Content-Type", "application/json")
                  .POST(HttpRequest.BodyPublishers.ofString(review))
                  .build(),
              HttpResponse.BodyHandlers.ofString());
      assertThat(answer.statusCode()).isEqualTo(200);
      // JOSDK registers its failure counter at the first failure: a controller that always fails
      // shows the series every controller's failures are counted in.
      Operator failing =
          new Operator(
              o ->
                  o.withKubernetesClient(server.client())
                      .withCloseClientOnStop(false)
                      .withMetrics(MicrometerMetrics.withoutPerResourceMetrics(registry)));
      failing.register(new AlwaysFails());
      failing.start();
      server
          .client()
          .configMaps()
          .inNamespace("ns")
          .resource(
              new ConfigMapBuilder().withNewMetadata().withName("fails").endMetadata().build())
          .create();
      long deadline = System.nanoTime() + Duration.ofSeconds(30).toNanos();
      Set<String> missing = missing(queried, registry.scrape());
      while (!missing.isEmpty() && System.nanoTime() < deadline) {
        Thread.sleep(200);
        missing = missing(queried, registry.scrape());
      }
      assertThat(missing).as("queried by the dashboard but not exposed").isEmpty();
      failing.stop();
    }
  }

  @ControllerConfiguration(name = "always-fails")
  static final class AlwaysFails implements Reconciler<ConfigMap> {
    @Override
    public UpdateControl<ConfigMap> reconcile(ConfigMap resource, Context<ConfigMap> context) {
      throw new IllegalStateException("fails on purpose");
    }
  }

  static Set<String> missing(Set<String> queried, String scrape) {
    Set<String> exposed = new TreeSet<>();
    scrape
        .lines()
        .filter(l -> !l.startsWith("#") && !l.isBlank())
        .forEach(l -> exposed.add(l.replaceFirst("[{ ].*$", "")));
    Set<String> missing = new TreeSet<>();
    for (String name : queried) {
      Pattern pattern = Pattern.compile(name.replace(".*", "[a-z_]*"));
      if (exposed.stream().noneMatch(e -> pattern.matcher(e).matches())) {
        missing.add(name);
      }
    }
    return missing;
  }
}
