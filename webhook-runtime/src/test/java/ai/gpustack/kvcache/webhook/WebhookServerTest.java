package ai.gpustack.kvcache.webhook;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import ai.gpustack.kvcache.admission.Admission;
import ai.gpustack.kvcache.api.EffectiveSettings;
import ai.gpustack.kvcache.cluster.ClusterView;
import ai.gpustack.kvcache.cluster.MemoryClusterView;
import ai.gpustack.kvcache.cluster.MemoryOnly;
import ai.gpustack.kvcache.resources.KVCacheBackend;
import ai.gpustack.kvcache.resources.KVCachePool;
import ai.gpustack.kvcache.resources.KVCachePoolBinding;
import ai.gpustack.kvcache.resources.KvCacheSerialization;
import ai.gpustack.kvcache.resources.ModelDeployment;
import ai.gpustack.kvcache.spi.EngineRegistry;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.fabric8.kubernetes.api.model.HasMetadata;
import io.fabric8.kubernetes.api.model.Pod;
import io.micrometer.prometheusmetrics.PrometheusConfig;
import io.micrometer.prometheusmetrics.PrometheusMeterRegistry;
import java.net.InetSocketAddress;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.security.cert.X509Certificate;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Base64;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.atomic.AtomicBoolean;
import javax.net.ssl.SSLSocket;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The webhook over real HTTPS on loopback, with a certificate the test generates. */
class WebhookServerTest {
  static final ObjectMapper JSON = new ObjectMapper();

  // One server for the class: stopping one waits for its idle keep-alive connections.
  @TempDir static Path dir;
  static TestCertificates.Pair pair;
  static WebhookServer server;
  static HttpClient client;

  static List<HasMetadata> cluster() {
    var s = KvCacheSerialization.create();
    return List.of(
        s.unmarshal(
            "{\"apiVersion\":\"worker.gpustack.ai/v1\",\"kind\":\"KVCachePool\",\"metadata\":{\"name\":\"pool-a\"},"
                + "\"spec\":{\"backends\":[\"mooncake\"],\"quota\":{\"total\":\"1Ti\"}},\"status\":{\"clientEndpoint\":\"master:50051\"}}"),
        s.unmarshal(
            "{\"apiVersion\":\"worker.gpustack.ai/v1\",\"kind\":\"KVCachePoolBinding\",\"metadata\":{\"name\":\"cache\",\"namespace\":\"team-a\"},"
                + "\"spec\":{\"poolRef\":{\"name\":\"pool-a\"},\"domain\":{\"name\":\"team-a\",\"blockSize\":16,\"dtype\":\"bfloat16\"},\"quota\":{\"ceiling\":\"1Gi\"}}}"));
  }

  static String podReview(String uid) {
    return "{\"apiVersion\":\"admission.k8s.io/v1\",\"kind\":\"AdmissionReview\",\"request\":{\"uid\":\""
        + uid
        + "\","
        + "\"kind\":{\"group\":\"\",\"version\":\"v1\",\"kind\":\"Pod\"},\"operation\":\"CREATE\",\"namespace\":\"team-a\","
        + "\"object\":{\"apiVersion\":\"v1\",\"kind\":\"Pod\",\"metadata\":{\"name\":\"p\",\"namespace\":\"team-a\","
        + "\"labels\":{\"kvcache.gpustack.ai/inject\":\"true\"},"
        + "\"annotations\":{\"kvcache.gpustack.ai/binding\":\"cache\",\"kvcache.gpustack.ai/engine\":\"vLLM\"}},"
        + "\"spec\":{\"containers\":[{\"name\":\"main\",\"command\":[\"vllm\"],\"args\":[\"serve\"]}]}}}}";
  }

  static String bindingReview(String uid, String dtype) {
    return "{\"apiVersion\":\"admission.k8s.io/v1\",\"kind\":\"AdmissionReview\",\"request\":{\"uid\":\""
        + uid
        + "\","
        + "\"kind\":{\"group\":\"worker.gpustack.ai\",\"version\":\"v1\",\"kind\":\"KVCachePoolBinding\"},\"operation\":\"CREATE\","
        + "\"namespace\":\"team-a\",\"object\":{\"apiVersion\":\"worker.gpustack.ai/v1\",\"kind\":\"KVCachePoolBinding\","
        + "\"metadata\":{\"name\":\"b\",\"namespace\":\"team-a\"},\"spec\":{\"poolRef\":{\"name\":\"pool-a\"},"
        + "\"domain\":{\"name\":\"b\",\"blockSize\":16,\"dtype\":\""
        + dtype
        + "\"},\"quota\":{\"ceiling\":\"1Gi\"}}}}}";
  }

  static final PrometheusMeterRegistry registry =
      new PrometheusMeterRegistry(PrometheusConfig.DEFAULT);

  @BeforeAll
  static void start() throws Exception {
    pair = TestCertificates.write(dir.resolve("a"), "webhook-a", "RSA");
    server = start(pair);
    client = TestCertificates.client(List.of(pair.certificate()));
  }

  static WebhookServer start(TestCertificates.Pair keys) throws Exception {
    Admission admission = new Admission(EngineRegistry.load(), MemoryClusterView.of(cluster()));
    return onLoopback(keys).admission(admission).meterRegistry(registry).start();
  }

  /** A server on a free loopback port serving {@code keys}. */
  static WebhookServer.Builder onLoopback(TestCertificates.Pair keys) throws Exception {
    return WebhookServer.builder()
        .address(new InetSocketAddress("127.0.0.1", 0))
        .keys(new ReloadingKeyManager(keys.cert(), keys.key()));
  }

  @AfterAll
  static void stop() {
    server.close();
  }

  static URI uri(WebhookServer on, String path) {
    return URI.create("https://localhost:" + on.address().getPort() + path);
  }

  URI uri(String path) {
    return uri(server, path);
  }

  HttpResponse<String> post(String path, String contentType, String body) throws Exception {
    return post(server, path, contentType, body);
  }

  static HttpResponse<String> post(WebhookServer on, String path, String contentType, String body)
      throws Exception {
    return client.send(
        HttpRequest.newBuilder(uri(on, path))
            .timeout(Duration.ofSeconds(10))
            .header("Content-Type", contentType)
            .POST(HttpRequest.BodyPublishers.ofString(body))
            .build(),
        HttpResponse.BodyHandlers.ofString());
  }

  @Test
  void a_pod_review_is_answered_with_the_injection_patch_and_its_uid() throws Exception {
    HttpResponse<String> r = post("/mutate/pods", "application/json", podReview("u-1"));
    assertThat(r.statusCode()).isEqualTo(200);
    JsonNode response = JSON.readTree(r.body()).get("response");
    assertThat(response.get("uid").asText()).isEqualTo("u-1");
    assertThat(response.get("allowed").asBoolean()).isTrue();
    assertThat(response.get("patchType").asText()).isEqualTo("JSONPatch");
    String patch = new String(Base64.getDecoder().decode(response.get("patch").asText()));
    assertThat(patch).contains("\"--kv-cache-dtype\"", "\"bfloat16\"");
  }

  @Test
  void a_refusal_carries_the_message_and_a_403() throws Exception {
    HttpResponse<String> r =
        post("/validate/kvcachepoolbindings", "application/json", bindingReview("u-2", "auto"));
    JsonNode response = JSON.readTree(r.body()).get("response");
    assertThat(response.get("allowed").asBoolean()).isFalse();
    assertThat(response.get("status").get("code").asInt()).isEqualTo(403);
    assertThat(response.get("status").get("message").asText())
        .contains("\"auto\" lets each engine resolve its own");
  }

  @Test
  void what_is_not_an_admission_review_of_the_right_kind_gets_a_one_line_4xx() throws Exception {
    assertThat(post("/mutate/pods", "text/plain", podReview("u")).statusCode()).isEqualTo(415);
    assertThat(post("/mutate/pods", "application/json", "{not json").statusCode()).isEqualTo(400);
    assertThat(
            post("/mutate/pods", "application/json", "{\"kind\":\"AdmissionReview\"}").statusCode())
        .isEqualTo(400);
    assertThat(post("/mutate/pods", "application/json", "[]").statusCode()).isEqualTo(400);
    HttpResponse<String> wrongKind =
        post("/mutate/pods", "application/json", bindingReview("u", "bfloat16"));
    assertThat(wrongKind.statusCode()).isEqualTo(400);
    assertThat(wrongKind.body()).isEqualTo("/mutate/pods admits Pod, not KVCachePoolBinding\n");
    assertThat(post("/nowhere", "application/json", "{}").statusCode()).isEqualTo(404);
    HttpResponse<String> get =
        client.send(
            HttpRequest.newBuilder(uri("/mutate/pods")).GET().build(),
            HttpResponse.BodyHandlers.ofString());
    assertThat(get.statusCode()).isEqualTo(405);
    HttpResponse<String> big =
        post(
            "/mutate/pods",
            "application/json",
            "{\"x\":\"" + "a".repeat(WebhookServer.MAX_BODY_BYTES) + "\"}");
    assertThat(big.statusCode()).isEqualTo(413);
    for (HttpResponse<String> r : List.of(wrongKind, get, big)) {
      assertThat(r.body()).doesNotContain("Exception").doesNotContain("\tat ").hasLineCount(1);
    }
  }

  @Test
  void the_port_serves_admission_only_and_counts_into_the_operators_registry() throws Exception {
    for (String path : List.of("/healthz", "/readyz", "/metrics")) {
      assertThat(get(path).statusCode()).as(path + " is the management port's").isEqualTo(404);
    }
    post("/validate/kvcachepoolbindings", "application/json", bindingReview("u-3", "auto"));
    post("/mutate/pods", "application/json", podReview("u-4"));
    assertThat(registry.scrape())
        .containsPattern(
            "kvcache_admission_requests_total\\{handler=\"kv_cache_pool_binding\",verdict=\"denied\"} [1-9]")
        .containsPattern(
            "kvcache_admission_requests_total\\{handler=\"pod_injection\",verdict=\"patched\"} [1-9]")
        .contains("kvcache_admission_duration_seconds_bucket{handler=\"pod_injection\"");
  }

  @Test
  void a_review_reading_past_the_cache_reads_on_a_handler_thread_and_is_counted_once()
      throws Exception {
    List<String> readOn = new java.util.concurrent.CopyOnWriteArrayList<>();
    ClusterView readingThrough = new ReadThroughView(readOn);
    PrometheusMeterRegistry own = new PrometheusMeterRegistry(PrometheusConfig.DEFAULT);
    try (WebhookServer reading =
        onLoopback(pair)
            .admission(new Admission(EngineRegistry.load(), readingThrough))
            .meterRegistry(own)
            .start()) {
      HttpResponse<String> r =
          post(reading, "/mutate/pods", "application/json", podReview("u-read"));
      JsonNode response = JSON.readTree(r.body()).get("response");
      assertThat(response.get("uid").asText()).isEqualTo("u-read");
      String patch = new String(Base64.getDecoder().decode(response.get("patch").asText()));
      assertThat(patch).as("the Binding read past the cache").contains("\"bfloat16\"");
      assertThat(readOn).hasSize(1);
      assertThat(readOn.get(0)).as("the read's thread").contains("-handler-");
      assertThat(own.scrape())
          .contains(
              "kvcache_admission_requests_total{handler=\"pod_injection\",verdict=\"patched\"} 1.0")
          .contains("kvcache_admission_duration_seconds_count{handler=\"pod_injection\"} 1");
    }
  }

  @Test
  void a_reviewer_that_may_block_is_called_on_a_handler_thread() throws Exception {
    List<String> calledOn = new java.util.concurrent.CopyOnWriteArrayList<>();
    try (WebhookServer blocking =
        onLoopback(pair)
            .reviewer(
                (route, review) -> {
                  calledOn.add(Thread.currentThread().getName());
                  return BenchServer.allowed(review);
                })
            .start()) {
      HttpResponse<String> r =
          post(blocking, "/mutate/pods", "application/json", podReview("u-block"));
      assertThat(JSON.readTree(r.body()).path("response").path("allowed").asBoolean()).isTrue();
      assertThat(calledOn).singleElement().asString().contains("-handler-");
    }
  }

  /** Holds the pool; the Binding is read past the cache, as an informer's view reads a new one. */
  static final class ReadThroughView implements ClusterView {
    private final ClusterView cached = MemoryClusterView.of(List.of(cluster().get(0)));
    private final List<String> readOn;

    ReadThroughView(List<String> readOn) {
      this.readOn = readOn;
    }

    @Override
    public Optional<KVCachePoolBinding> binding(String namespace, String name) {
      MemoryOnly.check();
      readOn.add(Thread.currentThread().getName());
      return MemoryClusterView.of(cluster()).binding(namespace, name);
    }

    @Override
    public List<KVCachePoolBinding> bindings() {
      return cached.bindings();
    }

    @Override
    public Optional<KVCachePool> pool(String name) {
      return cached.pool(name);
    }

    @Override
    public Optional<KVCacheBackend> backend(String name) {
      return cached.backend(name);
    }

    @Override
    public List<ModelDeployment> modelDeployments(String namespace) {
      return cached.modelDeployments(namespace);
    }

    @Override
    public List<Pod> injectedPods(String namespace) {
      return cached.injectedPods(namespace);
    }

    @Override
    public EffectiveSettings settings() {
      return cached.settings();
    }

    @Override
    public boolean mayBlock() {
      return false;
    }
  }

  @Test
  void tls_1_2_speaks_forward_secret_aead_suites_only() throws Exception {
    try (SSLSocket socket = socket(List.of(pair.certificate()), "TLSv1.2")) {
      socket.startHandshake();
      assertThat(socket.getSession().getCipherSuite()).contains("_GCM_").startsWith("TLS_ECDHE_");
    }
    assertThatThrownBy(
            () -> {
              try (SSLSocket socket = socket(List.of(pair.certificate()), "TLSv1.2")) {
                socket.setEnabledCipherSuites(
                    new String[] {
                      "TLS_ECDHE_RSA_WITH_AES_128_CBC_SHA", "TLS_ECDHE_ECDSA_WITH_AES_128_CBC_SHA"
                    });
                socket.startHandshake();
              }
            })
        .as("CBC with SHA-1 is refused")
        .isInstanceOf(javax.net.ssl.SSLException.class);
  }

  @Test
  void fifty_half_open_connections_and_fifty_unfinished_requests_hold_up_no_review()
      throws Exception {
    List<java.io.Closeable> held = new java.util.ArrayList<>();
    try {
      for (int i = 0; i < 50; i++) {
        // TCP open, no TLS handshake at all
        held.add(new java.net.Socket("127.0.0.1", server.address().getPort()));
      }
      for (int i = 0; i < 50; i++) {
        SSLSocket socket = socket(List.of(pair.certificate()), "TLSv1.3");
        socket.startHandshake();
        socket
            .getOutputStream()
            .write(
                "POST /mutate/pods HTTP/1.1\r\nHost: x\r\nContent-Length: 100\r\n\r\n{"
                    .getBytes(StandardCharsets.UTF_8));
        socket.getOutputStream().flush();
        held.add(socket);
      }
      long start = System.nanoTime();
      HttpResponse<String> r = post("/mutate/pods", "application/json", podReview("u-slow"));
      assertThat(r.statusCode()).isEqualTo(200);
      assertThat(Duration.ofNanos(System.nanoTime() - start)).isLessThan(Duration.ofSeconds(2));
    } finally {
      for (java.io.Closeable c : held) {
        c.close();
      }
    }
  }

  @Test
  void an_unfinished_request_is_closed_at_its_deadline() throws Exception {
    try (SSLSocket socket = socket(List.of(pair.certificate()), "TLSv1.3")) {
      socket.startHandshake();
      socket
          .getOutputStream()
          .write("POST /mutate/pods HTTP/1.1\r\nHost: x\r\n".getBytes(StandardCharsets.UTF_8));
      socket.getOutputStream().flush();
      socket.setSoTimeout(15_000);
      long start = System.nanoTime();
      assertThat(socket.getInputStream().read()).as("closed, nothing answered").isEqualTo(-1);
      assertThat(Duration.ofNanos(System.nanoTime() - start))
          .isGreaterThan(Duration.ofSeconds(8))
          .isLessThan(Duration.ofSeconds(13));
    }
  }

  @Test
  void only_tls_1_2_and_1_3_are_spoken() throws Exception {
    for (String protocol : List.of("TLSv1.2", "TLSv1.3")) {
      try (SSLSocket socket = socket(List.of(pair.certificate()), protocol)) {
        socket.startHandshake();
        assertThat(socket.getSession().getProtocol()).isEqualTo(protocol);
      }
    }
    assertThatThrownBy(
            () -> {
              try (SSLSocket socket = socket(List.of(pair.certificate()), "TLSv1.1")) {
                socket.startHandshake();
              }
            })
        .isInstanceOf(javax.net.ssl.SSLException.class);
  }

  @Test
  void a_rotated_certificate_is_served_to_new_connections_without_dropping_a_request()
      throws Exception {
    TestCertificates.Pair first = TestCertificates.write(dir.resolve("rotate"), "webhook-a", "RSA");
    TestCertificates.Pair next = TestCertificates.write(dir.resolve("b"), "webhook-b", "EC");
    try (WebhookServer rotating = start(first)) {
      rotation(rotating, first, next);
    }
  }

  void rotation(WebhookServer rotating, TestCertificates.Pair pair, TestCertificates.Pair next)
      throws Exception {
    HttpClient both = TestCertificates.client(List.of(pair.certificate(), next.certificate()));
    List<Throwable> failures = new java.util.concurrent.CopyOnWriteArrayList<>();
    AtomicBoolean running = new AtomicBoolean(true);
    int[] answered = new int[1];
    List<Thread> load = new ArrayList<>();
    for (int t = 0; t < 4; t++) {
      Thread thread =
          new Thread(
              () -> {
                while (running.get()) {
                  try {
                    HttpResponse<String> r =
                        both.send(
                            HttpRequest.newBuilder(uri(rotating, "/mutate/pods"))
                                .header("Content-Type", "application/json")
                                .POST(HttpRequest.BodyPublishers.ofString(podReview("rot")))
                                .build(),
                            HttpResponse.BodyHandlers.ofString());
                    if (r.statusCode() != 200) {
                      failures.add(new AssertionError("status " + r.statusCode()));
                    }
                    synchronized (answered) {
                      answered[0]++;
                    }
                  } catch (Exception e) {
                    failures.add(e);
                  }
                }
              });
      thread.start();
      load.add(thread);
    }
    Thread.sleep(300);
    java.nio.file.Files.copy(
        next.cert(), pair.cert(), java.nio.file.StandardCopyOption.REPLACE_EXISTING);
    java.nio.file.Files.copy(
        next.key(), pair.key(), java.nio.file.StandardCopyOption.REPLACE_EXISTING);
    long deadline = System.nanoTime() + Duration.ofSeconds(10).toNanos();
    X509Certificate served = null;
    while (System.nanoTime() < deadline) {
      try (SSLSocket socket =
          socket(rotating, List.of(pair.certificate(), next.certificate()), "TLSv1.3")) {
        socket.startHandshake();
        served = (X509Certificate) socket.getSession().getPeerCertificates()[0];
      }
      if (served.equals(next.certificate())) {
        break;
      }
      Thread.sleep(100);
    }
    Thread.sleep(300);
    running.set(false);
    for (Thread t : load) {
      t.join(10_000);
    }
    assertThat(served).isEqualTo(next.certificate());
    assertThat(failures).isEmpty();
    assertThat(answered[0]).isGreaterThan(10);
  }

  HttpResponse<String> get(String path) throws Exception {
    return client.send(
        HttpRequest.newBuilder(uri(path)).GET().build(), HttpResponse.BodyHandlers.ofString());
  }

  SSLSocket socket(List<X509Certificate> trusted, String protocol) throws Exception {
    return socket(server, trusted, protocol);
  }

  static SSLSocket socket(WebhookServer on, List<X509Certificate> trusted, String protocol)
      throws Exception {
    SSLSocket socket =
        (SSLSocket)
            TestCertificates.trusting(trusted)
                .getSocketFactory()
                .createSocket("127.0.0.1", on.address().getPort());
    socket.setEnabledProtocols(new String[] {protocol});
    socket.setSoTimeout(5000);
    return socket;
  }
}
