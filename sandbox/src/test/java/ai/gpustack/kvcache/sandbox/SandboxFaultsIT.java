package ai.gpustack.kvcache.sandbox;

import static org.assertj.core.api.Assertions.assertThat;

import ai.gpustack.kvcache.spi.EngineRegistry;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.security.cert.X509Certificate;
import java.time.Duration;
import java.util.HashMap;
import java.util.Map;
import javax.net.ssl.SSLContext;
import javax.net.ssl.TrustManager;
import javax.net.ssl.X509TrustManager;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/** What a client under test sees of {@code --faults}, on the wire. */
class SandboxFaultsIT {
  static final ObjectMapper JSON = new ObjectMapper();
  SandboxServer server;
  HttpClient http;

  @BeforeEach
  void start() throws Exception {
    server = SandboxServer.start(EngineRegistry.load(), 0);
    SSLContext tls = SSLContext.getInstance("TLS");
    tls.init(
        null,
        new TrustManager[] {
          new X509TrustManager() {
            @Override
            public void checkClientTrusted(X509Certificate[] chain, String authType) {}

            @Override
            public void checkServerTrusted(X509Certificate[] chain, String authType) {}

            @Override
            public X509Certificate[] getAcceptedIssuers() {
              return new X509Certificate[0];
            }
          }
        },
        null);
    http = HttpClient.newBuilder().sslContext(tls).connectTimeout(Duration.ofSeconds(5)).build();
  }

  @AfterEach
  void stop() {
    server.close();
  }

  HttpResponse<String> get(String path, String agent) throws Exception {
    return http.send(
        HttpRequest.newBuilder(URI.create("https://localhost:" + server.port() + path))
            .header("User-Agent", agent)
            .timeout(Duration.ofSeconds(30))
            .build(),
        HttpResponse.BodyHandlers.ofString());
  }

  @Test
  void errors_fall_on_the_share_asked_as_status_objects_and_the_stand_ins_see_none()
      throws Exception {
    server.faults(Faults.parse("rate=0.3,codes=429,500,503,seed=11"));
    Map<Integer, Integer> codes = new HashMap<>();
    for (int i = 0; i < 200; i++) {
      HttpResponse<String> answer = get("/api/v1/namespaces/default/pods", "kubectl/v1.32.0");
      codes.merge(answer.statusCode(), 1, Integer::sum);
      if (answer.statusCode() == 429) {
        assertThat(answer.headers().firstValue("Retry-After")).contains("1");
      }
      if (answer.statusCode() != 200) {
        JsonNode status = JSON.readTree(answer.body());
        assertThat(status.path("kind").asText()).isEqualTo("Status");
        assertThat(status.path("code").asInt()).isEqualTo(answer.statusCode());
      }
    }
    int failed = 200 - codes.getOrDefault(200, 0);
    assertThat(failed).isBetween(35, 85);
    assertThat(codes.keySet()).containsExactlyInAnyOrder(200, 429, 500, 503);
    assertThat(server.faults().total()).isEqualTo(failed);
    for (int i = 0; i < 50; i++) {
      assertThat(server.client().pods().inNamespace("default").list()).isNotNull();
    }
    assertThat(server.faults().total()).isEqualTo(failed);
  }

  @Test
  void a_watch_from_a_resource_version_can_expire_and_watches_are_dropped() throws Exception {
    server.faults(Faults.parse("expired=1"));
    HttpResponse<String> expired =
        get("/api/v1/namespaces/default/pods?watch=true&resourceVersion=1", "kubectl/v1.32.0");
    assertThat(expired.statusCode()).isEqualTo(200);
    JsonNode event = JSON.readTree(expired.body().lines().findFirst().orElseThrow());
    assertThat(event.path("type").asText()).isEqualTo("ERROR");
    assertThat(event.path("object").path("code").asInt()).isEqualTo(410);
    assertThat(event.path("object").path("reason").asText()).isEqualTo("Expired");

    server.faults(Faults.parse("watch-drop=500ms"));
    long start = System.nanoTime();
    try {
      get("/api/v1/namespaces/default/pods?watch=true&timeoutSeconds=20", "kubectl/v1.32.0");
    } catch (java.io.IOException closed) {
      // The connection closed under the open watch, as a dropped one does.
    }
    assertThat(Duration.ofNanos(System.nanoTime() - start)).isLessThan(Duration.ofSeconds(10));
    assertThat(server.faults().injected()).containsEntry("watch-drop", 1L);
  }
}
