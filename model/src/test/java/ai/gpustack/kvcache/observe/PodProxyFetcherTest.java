package ai.gpustack.kvcache.observe;

import static org.assertj.core.api.Assertions.assertThat;

import com.sun.net.httpserver.HttpServer;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.PodBuilder;
import io.fabric8.kubernetes.client.Config;
import io.fabric8.kubernetes.client.ConfigBuilder;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.KubernetesClientBuilder;
import java.io.OutputStream;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/** The Pod proxy read against an API server answering badly: each ends in a failure, in time. */
class PodProxyFetcherTest {
  private HttpServer server;
  private KubernetesClient client;
  private final Pod pod =
      new PodBuilder().withNewMetadata().withName("r-0").withNamespace("ns").endMetadata().build();

  @BeforeEach
  void start() throws Exception {
    server = HttpServer.create(new InetSocketAddress("127.0.0.1", 0), 0);
    server.createContext(
        "/api/v1/namespaces/ns/pods/r-0:8000/proxy/ok",
        e -> answer(e, 200, "vllm:cache_config_info{cache_dtype=\"fp8\"} 1.0\n".getBytes()));
    server.createContext(
        "/api/v1/namespaces/ns/pods/r-0:8000/proxy/missing", e -> answer(e, 404, new byte[0]));
    server.createContext(
        "/api/v1/namespaces/ns/pods/r-0:8000/proxy/huge", e -> answer(e, 200, new byte[3000]));
    server.createContext(
        "/api/v1/namespaces/ns/pods/r-0:8000/proxy/slow",
        e -> {
          try {
            Thread.sleep(3000);
          } catch (InterruptedException ignored) {
            Thread.currentThread().interrupt();
          }
          answer(e, 200, "late".getBytes());
        });
    server.setExecutor(java.util.concurrent.Executors.newCachedThreadPool());
    server.start();
    Config config =
        new ConfigBuilder()
            .withMasterUrl("http://127.0.0.1:" + server.getAddress().getPort())
            .withRequestRetryBackoffLimit(0)
            .build();
    client = new KubernetesClientBuilder().withConfig(config).build();
  }

  private static void answer(com.sun.net.httpserver.HttpExchange e, int code, byte[] body)
      throws java.io.IOException {
    e.sendResponseHeaders(code, body.length == 0 ? -1 : body.length);
    try (OutputStream out = e.getResponseBody()) {
      out.write(body);
    }
  }

  @AfterEach
  void stop() {
    client.close();
    server.stop(0);
  }

  private Fetch fetch(String path) {
    return new PodProxyFetcher(client, Duration.ofMillis(500), 2048).fetch(pod, 8000, path);
  }

  @Test
  void an_answer_is_read_through_the_pod_proxy_path() {
    Fetch ok = fetch("/ok");
    assertThat(ok.body()).get().asString().contains("cache_dtype=\"fp8\"");
    assertThat(new String(ok.body().get().getBytes(StandardCharsets.UTF_8))).endsWith("\n");
  }

  @Test
  void a_404_a_huge_body_and_a_timeout_are_failures_saying_which() {
    assertThat(fetch("/missing").detail()).isEqualTo("HTTP 404");
    assertThat(fetch("/huge").detail()).isEqualTo("the answer is larger than 2048 bytes");
    long start = System.nanoTime();
    Fetch slow = fetch("/slow");
    assertThat(slow.body()).isEmpty();
    assertThat(slow.detail()).isEqualTo("timed out after 500 ms");
    assertThat(Duration.ofNanos(System.nanoTime() - start)).isLessThan(Duration.ofSeconds(3));
  }
}
