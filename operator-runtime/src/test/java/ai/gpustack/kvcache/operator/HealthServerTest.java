package ai.gpustack.kvcache.operator;

import static org.assertj.core.api.Assertions.assertThat;

import io.micrometer.prometheusmetrics.PrometheusConfig;
import io.micrometer.prometheusmetrics.PrometheusMeterRegistry;
import java.io.Closeable;
import java.io.OutputStream;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

/** The management port answers the kubelet's probes whatever other clients do to it. */
class HealthServerTest {
  @Test
  void readyz_answers_at_once_under_fifty_half_open_and_fifty_unfinished_requests()
      throws Exception {
    PrometheusMeterRegistry registry = new PrometheusMeterRegistry(PrometheusConfig.DEFAULT);
    try (HealthServer health =
        HealthServer.start(
            new InetSocketAddress("127.0.0.1", 0), () -> true, () -> true, registry)) {
      int port = health.address().getPort();
      List<Closeable> held = new ArrayList<>();
      try {
        for (int i = 0; i < 50; i++) {
          held.add(new Socket("127.0.0.1", port));
          Socket unfinished = new Socket("127.0.0.1", port);
          OutputStream out = unfinished.getOutputStream();
          out.write("GET /readyz HTTP/1.1\r\nHost: x\r\n".getBytes(StandardCharsets.UTF_8));
          out.flush();
          held.add(unfinished);
        }
        HttpClient client = HttpClient.newHttpClient();
        long start = System.nanoTime();
        HttpResponse<String> ready =
            client.send(
                HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + port + "/readyz"))
                    .timeout(Duration.ofSeconds(2))
                    .build(),
                HttpResponse.BodyHandlers.ofString());
        assertThat(ready.statusCode()).isEqualTo(200);
        assertThat(ready.body()).isEqualTo("ready\n");
        assertThat(Duration.ofNanos(System.nanoTime() - start)).isLessThan(Duration.ofSeconds(1));
      } finally {
        for (Closeable c : held) {
          c.close();
        }
      }
    }
  }

  @Test
  void an_unfinished_request_is_dropped_at_its_deadline() throws Exception {
    try (HealthServer health =
            HealthServer.start(
                new InetSocketAddress("127.0.0.1", 0),
                () -> true,
                () -> false,
                new PrometheusMeterRegistry(PrometheusConfig.DEFAULT));
        Socket socket = new Socket("127.0.0.1", health.address().getPort())) {
      socket.getOutputStream().write("GET /healthz HTTP/1.1\r\n".getBytes(StandardCharsets.UTF_8));
      socket.setSoTimeout(10_000);
      long start = System.nanoTime();
      assertThat(socket.getInputStream().read()).isEqualTo(-1);
      assertThat(Duration.ofNanos(System.nanoTime() - start))
          .isGreaterThan(Duration.ofSeconds(3))
          .isLessThan(Duration.ofSeconds(8));
    }
  }
}
