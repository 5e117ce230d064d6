package ai.gpustack.kvcache.operator.cli;

import static org.assertj.core.api.Assertions.assertThat;

import ai.gpustack.kvcache.webhook.TestCertificates;
import com.sun.net.httpserver.HttpServer;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The long-running commands refuse to start in one line, with the exit code they document. */
class StartupFailureTest {
  @TempDir Path dir;
  private HttpServer forbidding;
  private Path kubeconfig;
  private TestCertificates.Pair tls;

  @BeforeEach
  void an_api_server_that_forbids_everything() throws Exception {
    forbidding = HttpServer.create(new InetSocketAddress("127.0.0.1", 0), 0);
    forbidding.createContext(
        "/",
        exchange -> {
          byte[] body =
              ("{\"kind\":\"Status\",\"apiVersion\":\"v1\",\"status\":\"Failure\",\"reason\":"
                      + "\"Forbidden\",\"code\":403,\"message\":\"forbidden: no grant\"}")
                  .getBytes(StandardCharsets.UTF_8);
          exchange.getResponseHeaders().set("Content-Type", "application/json");
          exchange.sendResponseHeaders(403, body.length);
          exchange.getResponseBody().write(body);
          exchange.close();
        });
    forbidding.start();
    kubeconfig = dir.resolve("kubeconfig");
    Files.writeString(
        kubeconfig,
        String.join(
            "\n",
            "apiVersion: v1",
            "kind: Config",
            "clusters: [{name: c, cluster: {server: 'http://127.0.0.1:"
                + forbidding.getAddress().getPort()
                + "'}}]",
            "users: [{name: u, user: {token: t}}]",
            "contexts: [{name: x, context: {cluster: c, user: u}}]",
            "current-context: x",
            ""));
    tls = TestCertificates.write(dir.resolve("tls"), "webhook", "EC");
  }

  @AfterEach
  void stop() {
    forbidding.stop(0);
  }

  @Test
  void the_webhook_that_cannot_read_the_cluster_says_where_and_why_and_exits_1() {
    CliRun run = CliRun.of(webhook(kubeconfig.toString()));
    assertThat(run.exitCode()).as(run.err()).isEqualTo(1);
    assertThat(run.err())
        .startsWith(
            "kvcache webhook: cannot read the cluster at http://127.0.0.1:"
                + forbidding.getAddress().getPort())
        .contains("forbidden")
        .hasLineCount(1);
  }

  @Test
  void the_operator_that_cannot_read_the_cluster_says_where_and_why_and_exits_1() {
    CliRun run =
        CliRun.of(
            "run",
            "--no-webhook",
            "--kubeconfig",
            kubeconfig.toString(),
            "--health-listen",
            "127.0.0.1:0");
    assertThat(run.exitCode()).as(run.err()).isEqualTo(1);
    assertThat(run.err())
        .startsWith("kvcache run: cannot read the cluster at http://127.0.0.1:")
        .contains("forbidden")
        .hasLineCount(1);
  }

  @Test
  void a_kubeconfig_that_is_not_there_is_a_bad_argument() {
    CliRun run = CliRun.of(webhook(dir.resolve("absent").toString()));
    assertThat(run.exitCode()).isEqualTo(2);
    assertThat(run.err()).startsWith("kvcache webhook: cannot read the kubeconfig");
  }

  private String[] webhook(String kubeconfig) {
    return new String[] {
      "webhook",
      "--kubeconfig",
      kubeconfig,
      "--tls-cert",
      tls.cert().toString(),
      "--tls-key",
      tls.key().toString(),
      "--listen",
      "127.0.0.1:0"
    };
  }
}
