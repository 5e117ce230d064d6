package ai.gpustack.kvcache.operator.cli;

import static org.assertj.core.api.Assertions.assertThat;

import ai.gpustack.kvcache.operator.TestObjects;
import ai.gpustack.kvcache.resources.Keys;
import ai.gpustack.kvcache.resources.ModelDeployment;
import ai.gpustack.kvcache.sandbox.Kubelet;
import ai.gpustack.kvcache.sandbox.SandboxServer;
import ai.gpustack.kvcache.spi.EngineRegistry;
import ai.gpustack.kvcache.webhook.TestCertificates;
import java.io.IOException;
import java.net.ServerSocket;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.function.Supplier;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@code kvcache run} and {@code kvcache webhook} from the shipped jar, as separate processes,
 * against the sandbox's API server.
 */
class ProcessIT {
  @TempDir Path dir;

  static int freePort() throws IOException {
    try (ServerSocket s = new ServerSocket(0)) {
      return s.getLocalPort();
    }
  }

  Process start(String... args) throws IOException {
    return ShippedJar.start(dir.resolve("process.log"), args);
  }

  static void await(String what, Supplier<Boolean> done) throws InterruptedException {
    long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(60);
    while (System.nanoTime() < deadline) {
      try {
        if (done.get()) {
          return;
        }
      } catch (RuntimeException e) {
        // not yet
      }
      Thread.sleep(200);
    }
    throw new AssertionError("timed out waiting for " + what);
  }

  /**
   * The README's path: the sandbox served, then preflight against its kubeconfig, both as a
   * newcomer runs them.
   */
  @Test
  void preflight_reads_the_served_sandbox_and_reports_what_would_break() throws Exception {
    Path kubeconfig = dir.resolve("sandbox.kubeconfig");
    Process sandbox = start("sandbox", "--serve", "--kubeconfig-out", kubeconfig.toString());
    try {
      await(
          "the sandbox to be ready",
          () -> {
            try {
              return Files.readString(dir.resolve("process.log")).contains("ready: ");
            } catch (IOException e) {
              return false;
            }
          });
      List<String> command =
          ShippedJar.command("preflight", "--kubeconfig", kubeconfig.toString(), "-o", "json");
      Process preflight =
          new ProcessBuilder(command)
              .redirectOutput(dir.resolve("preflight.json").toFile())
              .redirectError(dir.resolve("preflight.err").toFile())
              .start();
      assertThat(preflight.waitFor(60, TimeUnit.SECONDS)).isTrue();
      String report = Files.readString(dir.resolve("preflight.json"));
      assertThat(preflight.exitValue())
          .as(report + Files.readString(dir.resolve("preflight.err")))
          .isEqualTo(1);
      assertThat(report)
          .contains("\"source\" : \"cluster (context kvcache-sandbox)\"")
          .contains("\"check\" : \"template-passes-flag\"", "Deployment team-a/injected-own-flag")
          .contains(
              "\"name\" : \"chat-vllm\",\n"
                  + "    \"replicas\" : 2,\n"
                  + "    \"running\" : 2,\n"
                  + "    \"rollOnUpgrade\" : 0,\n"
                  + "    \"rollOnSettingFlip\" : 2");
    } finally {
      sandbox.destroy();
      sandbox.waitFor(20, TimeUnit.SECONDS);
    }
  }

  @Test
  @SuppressWarnings("try") // the kubelet only has to run while the operator does
  void kvcache_run_reconciles_and_serves_health_and_the_webhook() throws Exception {
    try (SandboxServer cluster = SandboxServer.start(EngineRegistry.load(), 0);
        Kubelet kubelet = new Kubelet(cluster.client(), Duration.ofMillis(100))) {
      Path kubeconfig = dir.resolve("kubeconfig");
      Files.writeString(kubeconfig, cluster.kubeconfig());
      TestCertificates.Pair pair = TestCertificates.write(dir.resolve("tls"), "webhook", "RSA");
      int health = freePort();
      int webhook = freePort();
      Process run =
          start(
              "run",
              "--kubeconfig",
              kubeconfig.toString(),
              "--tls-cert",
              pair.cert().toString(),
              "--tls-key",
              pair.key().toString(),
              "--webhook-listen",
              "127.0.0.1:" + webhook,
              "--health-listen",
              "127.0.0.1:" + health,
              "--identity",
              "it");
      try {
        HttpClient http = HttpClient.newHttpClient();
        await("readyz", () -> send(http, "http://127.0.0.1:" + health + "/readyz") == 200);
        HttpClient https = TestCertificates.client(List.of(pair.certificate()));
        await(
            "the webhook answering",
            () -> send(https, "https://localhost:" + webhook + "/healthz") == 404);
        TestObjects.apply(
            cluster.client(),
            """
            apiVersion: worker.gpustack.ai/v1
            kind: ModelDeployment
            metadata: {name: solo, namespace: ns}
            spec: {model: {name: m}, engine: {name: SGLang}, roles: [{name: server, replicas: 2}]}
            """);
        await(
            "replicas",
            () ->
                cluster
                        .client()
                        .pods()
                        .inNamespace("ns")
                        .withLabel(Keys.INSTANCE, "solo")
                        .list()
                        .getItems()
                        .size()
                    == 2);
        await(
            "ready",
            () ->
                cluster
                    .client()
                    .resources(ModelDeployment.class)
                    .inNamespace("ns")
                    .withName("solo")
                    .get()
                    .getStatus()
                    .phase()
                    .orElse("")
                    .equals("Ready"));
      } finally {
        run.destroy();
        run.waitFor(20, TimeUnit.SECONDS);
      }
      assertThat(Files.readString(dir.resolve("process.log")))
          .contains("kvcache operator running as it");
    }
  }

  @Test
  void kvcache_webhook_alone_answers_reviews_with_a_bad_certificate_refused_at_start()
      throws Exception {
    try (SandboxServer cluster = SandboxServer.start(EngineRegistry.load(), 0)) {
      Path kubeconfig = dir.resolve("kubeconfig");
      Files.writeString(kubeconfig, cluster.kubeconfig());
      Files.writeString(dir.resolve("bad.pem"), "not a certificate");
      Process bad =
          start(
              "webhook",
              "--kubeconfig",
              kubeconfig.toString(),
              "--tls-cert",
              dir.resolve("bad.pem").toString(),
              "--tls-key",
              dir.resolve("bad.pem").toString());
      assertThat(bad.waitFor(30, TimeUnit.SECONDS)).isTrue();
      assertThat(bad.exitValue()).isEqualTo(2);
      TestCertificates.Pair pair = TestCertificates.write(dir.resolve("tls"), "webhook", "EC");
      int port = freePort();
      int management = freePort();
      Process webhook =
          start(
              "webhook",
              "--kubeconfig",
              kubeconfig.toString(),
              "--tls-cert",
              pair.cert().toString(),
              "--tls-key",
              pair.key().toString(),
              "--listen",
              "127.0.0.1:" + port,
              "--health-listen",
              "127.0.0.1:" + management);
      try {
        HttpClient https = TestCertificates.client(List.of(pair.certificate()));
        HttpClient http = HttpClient.newHttpClient();
        await("ready", () -> send(http, "http://127.0.0.1:" + management + "/readyz") == 200);
        HttpResponse<String> answer =
            https.send(
                HttpRequest.newBuilder(
                        URI.create("https://localhost:" + port + "/validate/kvcachepoolbindings"))
                    .header("Content-Type", "application/json")
                    .POST(
                        HttpRequest.BodyPublishers.ofString(
                            """
                {"apiVersion":"admission.k8s.io/v1","kind":"AdmissionReview","request":{"uid":"u","kind":{"kind":"KVCachePoolBinding"},
                 "operation":"CREATE","namespace":"ns","object":{"apiVersion":"worker.gpustack.ai/v1","kind":"KVCachePoolBinding",
                 "metadata":{"name":"b","namespace":"ns"},"spec":{"poolRef":{"name":"p"},"domain":{"blockSize":16,"dtype":"auto"},"quota":{"ceiling":"1Gi"}}}}}
                """))
                    .build(),
                HttpResponse.BodyHandlers.ofString());
        assertThat(answer.statusCode()).isEqualTo(200);
        assertThat(answer.body()).contains("lets each engine resolve its own");
      } finally {
        webhook.destroy();
        webhook.waitFor(20, TimeUnit.SECONDS);
      }
    }
  }

  static int send(HttpClient client, String uri) {
    try {
      return client
          .send(
              HttpRequest.newBuilder(URI.create(uri)).timeout(Duration.ofSeconds(5)).build(),
              HttpResponse.BodyHandlers.ofString())
          .statusCode();
    } catch (IOException e) {
      return -1;
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      return -1;
    }
  }
}
