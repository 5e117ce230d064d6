package ai.gpustack.kvcache.webhook;

import static org.assertj.core.api.Assertions.assertThat;

import ai.gpustack.kvcache.admission.Admission;
import ai.gpustack.kvcache.admission.Decision;
import ai.gpustack.kvcache.admission.Handler;
import ai.gpustack.kvcache.admission.MemoryClusterView;
import ai.gpustack.kvcache.spi.EngineRegistry;
import io.micrometer.prometheusmetrics.PrometheusConfig;
import io.micrometer.prometheusmetrics.PrometheusMeterRegistry;
import java.net.InetSocketAddress;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Load on loopback over TLS with keep-alive: Pod-injection reviews against a no-op handler on the
 * same server in the same run. Prints throughput, p50/p99, the ratio, and latency at a fixed 1,000
 * reviews/s. Run it with {@code ./mvnw -B -Pbench -pl webhook-runtime -am verify}; numbers go in
 * notes, never into asserts.
 */
class WebhookLoadBenchmark {
  private static final int CLIENTS = 8;
  private static final Duration WARMUP = Duration.ofSeconds(5);
  private static final Duration MEASURE = Duration.ofSeconds(10);

  @TempDir Path dir;

  @Test
  void injection_against_no_op() throws Exception {
    Admission admission =
        new Admission(EngineRegistry.load(), MemoryClusterView.of(WebhookServerTest.cluster()));
    // The Setting path answers without looking: the no-op baseline, through the same server.
    WebhookServer.Reviewer reviewer =
        (handler, review) ->
            handler == Handler.SETTING
                ? Admission.respond(
                    review.path("request").path("uid").asText(), Decision.allow(List.of()))
                : admission.review(handler, review);
    TestCertificates.Pair pair = TestCertificates.write(dir, "bench", "EC");
    try (WebhookServer server =
        WebhookServer.start(
            new InetSocketAddress("127.0.0.1", 0),
            new ReloadingKeyManager(pair.cert(), pair.key()),
            reviewer,
            () -> true,
            new PrometheusMeterRegistry(PrometheusConfig.DEFAULT))) {
      HttpClient client =
          HttpClient.newBuilder()
              .version(HttpClient.Version.HTTP_1_1)
              .sslContext(TestCertificates.trusting(List.of(pair.certificate())))
              .build();
      String base = "https://localhost:" + server.address().getPort();
      HttpRequest injection =
          request(base + Handler.POD_INJECTION.path(), WebhookServerTest.podReview("bench"));
      HttpRequest noop =
          request(base + Handler.SETTING.path(), WebhookServerTest.podReview("bench"));
      closedLoop(client, injection, WARMUP);
      closedLoop(client, noop, WARMUP);
      Result noopMax = closedLoop(client, noop, MEASURE);
      Result injectionMax = closedLoop(client, injection, MEASURE);
      Result noopAt1k = openLoop(client, noop, 1000, MEASURE);
      Result injectionAt1k = openLoop(client, injection, 1000, MEASURE);
      System.out.printf(
          "%n== webhook load, %d clients, TLS keep-alive, %d cores ==%n",
          CLIENTS, Runtime.getRuntime().availableProcessors());
      System.out.println("no-op      max: " + noopMax);
      System.out.println("injection  max: " + injectionMax);
      System.out.printf(
          "injection/no-op throughput ratio: %.2f%n", injectionMax.perSecond / noopMax.perSecond);
      System.out.println("no-op      @1000/s: " + noopAt1k);
      System.out.println("injection  @1000/s: " + injectionAt1k);
      assertThat(injectionMax.errors + noopMax.errors + noopAt1k.errors + injectionAt1k.errors)
          .isZero();
    }
  }

  private static HttpRequest request(String uri, String body) {
    return HttpRequest.newBuilder(URI.create(uri))
        .header("Content-Type", "application/json")
        .POST(HttpRequest.BodyPublishers.ofString(body))
        .build();
  }

  record Result(double perSecond, double p50Millis, double p99Millis, long errors) {
    @Override
    public String toString() {
      return String.format(
          "%8.0f reviews/s  p50 %.3f ms  p99 %.3f ms  errors %d",
          perSecond, p50Millis, p99Millis, errors);
    }
  }

  /** CLIENTS workers sending back to back for {@code duration}. */
  private static Result closedLoop(HttpClient client, HttpRequest request, Duration duration)
      throws Exception {
    ExecutorService pool = Executors.newFixedThreadPool(CLIENTS);
    long end = System.nanoTime() + duration.toNanos();
    AtomicLong errors = new AtomicLong();
    List<Future<long[]>> workers = new ArrayList<>();
    long start = System.nanoTime();
    for (int c = 0; c < CLIENTS; c++) {
      workers.add(
          pool.submit(
              () -> {
                long[] samples = new long[1 << 20];
                int n = 0;
                while (System.nanoTime() < end && n < samples.length) {
                  long t = System.nanoTime();
                  if (client.send(request, HttpResponse.BodyHandlers.ofByteArray()).statusCode()
                      != 200) {
                    errors.incrementAndGet();
                  }
                  samples[n++] = System.nanoTime() - t;
                }
                return Arrays.copyOf(samples, n);
              }));
    }
    List<long[]> all = new ArrayList<>();
    for (Future<long[]> f : workers) {
      all.add(f.get());
    }
    double seconds = (System.nanoTime() - start) / 1e9;
    pool.shutdown();
    return summarize(all, seconds, errors.get());
  }

  /** Requests started at a fixed rate, latency measured from the scheduled start. */
  private static Result openLoop(
      HttpClient client, HttpRequest request, int perSecond, Duration duration) throws Exception {
    int total = (int) (perSecond * duration.toSeconds());
    long interval = 1_000_000_000L / perSecond;
    ExecutorService pool = Executors.newFixedThreadPool(64);
    long[] samples = new long[total];
    AtomicLong errors = new AtomicLong();
    long start = System.nanoTime();
    List<Future<?>> sent = new ArrayList<>();
    for (int i = 0; i < total; i++) {
      long scheduled = start + i * interval;
      long wait = scheduled - System.nanoTime();
      if (wait > 0) {
        TimeUnit.NANOSECONDS.sleep(wait);
      }
      int index = i;
      sent.add(
          pool.submit(
              () -> {
                try {
                  if (client.send(request, HttpResponse.BodyHandlers.ofByteArray()).statusCode()
                      != 200) {
                    errors.incrementAndGet();
                  }
                } catch (Exception e) {
                  errors.incrementAndGet();
                }
                samples[index] = System.nanoTime() - scheduled;
              }));
    }
    for (Future<?> f : sent) {
      f.get();
    }
    double seconds = (System.nanoTime() - start) / 1e9;
    pool.shutdown();
    return summarize(List.of(samples), seconds, errors.get());
  }

  private static Result summarize(List<long[]> parts, double seconds, long errors) {
    long[] all = parts.stream().flatMapToLong(Arrays::stream).sorted().toArray();
    return new Result(
        all.length / seconds,
        all[all.length / 2] / 1e6,
        all[(int) (all.length * 0.99)] / 1e6,
        errors);
  }
}
