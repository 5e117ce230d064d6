package ai.gpustack.kvcache.observe;

import static org.assertj.core.api.Assertions.assertThat;

import com.sun.net.httpserver.HttpExchange;
import com.sun.net.httpserver.HttpServer;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.PodBuilder;
import io.fabric8.kubernetes.client.Config;
import io.fabric8.kubernetes.client.ConfigBuilder;
import java.io.IOException;
import java.io.OutputStream;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Nested;
import org.junit.jupiter.api.Test;

/**
 * Engines that answer to hurt whoever reads them, behind a stand-in API server that relays a Pod's
 * answer through its proxy path unchanged, as the real one does (redirects included): the reader's
 * credentials reach the API server and nowhere else, and no answer holds or fills a reader.
 */
class HostileEngineTest {
  private static final String TOKEN = "OPERATOR-SA-TOKEN";
  private static final String METRICS =
      "vllm:cache_config_info{block_size=\"16\",cache_dtype=\"bfloat16\"} 1.0\n";

  private HttpServer apiServer;
  private HttpServer elsewhere;
  private ExecutorService handlers;
  private final List<String> apiServerPaths = new CopyOnWriteArrayList<>();
  private final List<String> apiServerAuthorization = new CopyOnWriteArrayList<>();
  private final List<String> elsewhereRequests = new CopyOnWriteArrayList<>();
  private final Map<String, Handler> pods = new ConcurrentHashMap<>();
  private PodProxyFetcher fetcher;

  /** What one Pod's engine answers on its proxy path. */
  @FunctionalInterface
  interface Handler {
    void answer(HttpExchange exchange) throws Exception;
  }

  @BeforeEach
  void start() throws IOException {
    handlers = Executors.newCachedThreadPool();
    elsewhere = HttpServer.create(new InetSocketAddress("127.0.0.1", 0), 0);
    elsewhere.createContext(
        "/",
        e -> {
          elsewhereRequests.add(
              e.getRequestURI() + " Authorization=" + e.getRequestHeaders().get("Authorization"));
          answer(e, 200, METRICS);
        });
    elsewhere.setExecutor(handlers);
    elsewhere.start();
    apiServer = HttpServer.create(new InetSocketAddress("127.0.0.1", 0), 0);
    apiServer.createContext(
        "/",
        e -> {
          String path = e.getRequestURI().getPath();
          apiServerPaths.add(path);
          apiServerAuthorization.add(
              String.valueOf(e.getRequestHeaders().getFirst("Authorization")));
          // /api/v1/namespaces/NS/pods/NAME:PORT/proxy/PATH
          String[] parts = path.split("/");
          Handler pod = parts.length > 6 ? pods.get(parts[4] + "/" + parts[6]) : null;
          try {
            if (pod == null) {
              answer(e, 404, "{\"kind\":\"Status\",\"code\":404}");
            } else {
              pod.answer(e);
            }
          } catch (Exception failure) {
            e.close();
          }
        });
    apiServer.setExecutor(handlers);
    apiServer.start();
    fetcher = fetcher(Duration.ofMillis(1500), 2048);
  }

  private PodProxyFetcher fetcher(Duration deadline, int maxBytes) {
    Config config =
        new ConfigBuilder()
            .withMasterUrl("http://127.0.0.1:" + apiServer.getAddress().getPort())
            .withOauthToken(TOKEN)
            .build();
    return new PodProxyFetcher(config, deadline, maxBytes);
  }

  @AfterEach
  void stop() {
    fetcher.close();
    apiServer.stop(0);
    elsewhere.stop(0);
    handlers.shutdownNow();
  }

  private static void answer(HttpExchange e, int code, String body) throws IOException {
    byte[] bytes = body.getBytes(StandardCharsets.UTF_8);
    e.sendResponseHeaders(code, bytes.length == 0 ? -1 : bytes.length);
    try (OutputStream out = e.getResponseBody()) {
      out.write(bytes);
    }
  }

  private static Pod pod(String namespace, String name) {
    return new PodBuilder()
        .withNewMetadata()
        .withName(name)
        .withNamespace(namespace)
        .endMetadata()
        .build();
  }

  private Fetch read(String namespace, String name) {
    return fetcher.fetch(pod(namespace, name), 8000, "/metrics").join();
  }

  @Nested
  class A_redirect_is_a_failed_read {
    @Test
    void to_another_host_no_credential_and_no_request_arrives_there() {
      String steal = "http://127.0.0.1:" + elsewhere.getAddress().getPort() + "/steal";
      pods.put(
          "tenant-a/engine:8000",
          e -> {
            e.getResponseHeaders().add("Location", steal);
            answer(e, 302, "");
          });
      Fetch fetch = read("tenant-a", "engine");
      assertThat(fetch.body()).isEmpty();
      assertThat(fetch.detail()).isEqualTo("HTTP 302: a redirect, not followed");
      assertThat(elsewhereRequests).isEmpty();
      assertThat(apiServerAuthorization)
          .as("the credential goes to the API server")
          .containsExactly("Bearer " + TOKEN);
    }

    @Test
    void to_another_namespace_on_the_same_api_server_it_is_not_asked_for() {
      pods.put(
          "tenant-a/engine:8000",
          e -> {
            e.getResponseHeaders()
                .add(
                    "Location", "/api/v1/namespaces/kube-system/pods/coredns-x:9153/proxy/metrics");
            answer(e, 307, "");
          });
      pods.put("kube-system/coredns-x:9153", e -> answer(e, 200, "secret"));
      assertThat(read("tenant-a", "engine").detail())
          .isEqualTo("HTTP 307: a redirect, not followed");
      assertThat(apiServerPaths)
          .containsExactly("/api/v1/namespaces/tenant-a/pods/engine:8000/proxy/metrics");
    }
  }

  @Nested
  class No_answer_holds_a_reader_past_its_deadline {
    @Test
    void a_trickling_body_fails_within_the_deadline() {
      pods.put(
          "tenant-a/trickle:8000",
          e -> {
            e.sendResponseHeaders(200, 0);
            OutputStream out = e.getResponseBody();
            for (int i = 0; i < 300; i++) {
              out.write('#');
              out.flush();
              Thread.sleep(100);
            }
            out.close();
          });
      long start = System.nanoTime();
      Fetch fetch = read("tenant-a", "trickle");
      Duration took = Duration.ofNanos(System.nanoTime() - start);
      assertThat(fetch.body()).isEmpty();
      assertThat(fetch.detail()).isEqualTo("timed out after 1500 ms");
      assertThat(took).isLessThan(Duration.ofSeconds(4));
    }

    @Test
    void silent_headers_fail_within_the_deadline() {
      pods.put("tenant-a/silent:8000", e -> Thread.sleep(30_000));
      long start = System.nanoTime();
      assertThat(read("tenant-a", "silent").detail()).isEqualTo("timed out after 1500 ms");
      assertThat(Duration.ofNanos(System.nanoTime() - start)).isLessThan(Duration.ofSeconds(4));
    }
  }

  @Nested
  class No_answer_fills_a_reader {
    @Test
    void a_body_over_the_cap_fails_without_being_kept_even_one_without_end() {
      pods.put("tenant-a/huge:8000", e -> answer(e, 200, "x".repeat(3000)));
      pods.put(
          "tenant-a/endless:8000",
          e -> {
            e.sendResponseHeaders(200, 0);
            byte[] chunk = new byte[8192];
            try (OutputStream out = e.getResponseBody()) {
              while (true) {
                out.write(chunk);
              }
            }
          });
      assertThat(read("tenant-a", "huge").detail())
          .isEqualTo("the answer is larger than 2048 bytes");
      long start = System.nanoTime();
      assertThat(read("tenant-a", "endless").detail())
          .isEqualTo("the answer is larger than 2048 bytes");
      assertThat(Duration.ofNanos(System.nanoTime() - start)).isLessThan(Duration.ofSeconds(1));
    }

    @Test
    void an_error_answer_says_its_status_and_nothing_of_its_body() {
      pods.put("tenant-a/error:8000", e -> answer(e, 503, "\u001b[31mcall me at evil.example"));
      assertThat(read("tenant-a", "error").detail()).isEqualTo("HTTP 503");
    }

    @Test
    void an_honest_answer_under_the_cap_reads_whole() {
      pods.put("tenant-a/engine:8000", e -> answer(e, 200, METRICS));
      assertThat(read("tenant-a", "engine").body()).contains(METRICS);
    }
  }

  @Test
  void slow_tenants_delay_only_themselves_a_fast_pod_is_read_within_ten_seconds() {
    try (PodProxyFetcher real = fetcher(PodProxyFetcher.DEADLINE, PodProxyFetcher.MAX_BYTES)) {
      FairFetcher fair = new FairFetcher(real, FairFetcher.LIMIT, FairFetcher.PER_NAMESPACE);
      Handler trickle =
          e -> {
            e.sendResponseHeaders(200, 0);
            OutputStream out = e.getResponseBody();
            for (int i = 0; i < 600; i++) {
              out.write('#');
              out.flush();
              Thread.sleep(50);
            }
            out.close();
          };
      List<CompletableFuture<Fetch>> slow = new ArrayList<>();
      // Twenty slow Pods in one tenant's namespace, twenty more each in a namespace of its own.
      for (int i = 0; i < 20; i++) {
        pods.put("slow/engine-" + i + ":8000", trickle);
        pods.put("slow-" + i + "/engine:8000", trickle);
        slow.add(fair.fetch(pod("slow", "engine-" + i), 8000, "/metrics"));
        slow.add(fair.fetch(pod("slow-" + i, "engine"), 8000, "/metrics"));
      }
      pods.put("fast/engine:8000", e -> answer(e, 200, METRICS));
      long start = System.nanoTime();
      Fetch fast =
          fair.fetch(pod("fast", "engine"), 8000, "/metrics")
              .orTimeout(10, TimeUnit.SECONDS)
              .join();
      assertThat(fast.body()).contains(METRICS);
      assertThat(Duration.ofNanos(System.nanoTime() - start)).isLessThan(Duration.ofSeconds(10));
      assertThat(slow).allSatisfy(f -> assertThat(f).isNotDone());
    }
  }
}
