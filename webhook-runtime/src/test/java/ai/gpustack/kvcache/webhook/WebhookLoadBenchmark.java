package ai.gpustack.kvcache.webhook;

import static org.assertj.core.api.Assertions.assertThat;

import ai.gpustack.kvcache.admission.Admission;
import ai.gpustack.kvcache.admission.Decision;
import ai.gpustack.kvcache.admission.Route;
import ai.gpustack.kvcache.cluster.MemoryClusterView;
import ai.gpustack.kvcache.spi.EngineRegistry;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.lang.management.ManagementFactory;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Comparator;
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
 * same server in the same run, and against a no-op that answers with the injection's bytes (so the
 * cost of the handler and the cost of a larger answer show apart). The series alternate in short
 * rounds, in turn forwards and backwards, so drift on a shared machine falls on all of them alike;
 * the medians of the rounds are reported. Then latency at a fixed 2,000 reviews/s. Run it with
 * {@code ./mvnw -B -Pbench verify -pl webhook-runtime -am}; numbers go in notes, never asserts.
 */
class WebhookLoadBenchmark {
  private static final ObjectMapper JSON = new ObjectMapper();
  private static final int CLIENTS = 8;
  private static final Duration WARMUP = Duration.ofSeconds(5);
  private static final int ROUNDS = 12;
  private static final Duration ROUND = Duration.ofSeconds(2);
  private static final Duration FIXED_RATE = Duration.ofSeconds(10);
  private static final int FIXED_PER_SECOND = 2000;

  @TempDir Path dir;

  @Test
  void injection_against_no_op() throws Exception {
    Admission admission =
        new Admission(EngineRegistry.load(), MemoryClusterView.of(WebhookServerTest.cluster()));
    String body = WebhookServerTest.podReview("bench");
    JsonNode injected = admission.review(Route.POD_INJECTION, JSON.readTree(body));
    // The Setting path answers without looking; the freeze path answers with the injection's
    // answer, computed once: the two baselines, through the same server.
    WebhookServer.Reviewer reviewer =
        (route, review) ->
            switch (route) {
              case SETTING -> BenchServer.allowed(review);
              case POD_FREEZE -> injected;
              default -> admission.review(route, review);
            };
    TestCertificates.Pair pair = TestCertificates.write(dir, "bench", "EC");
    try (WebhookServer server = BenchServer.start(pair, reviewer)) {
      HttpClient client =
          HttpClient.newBuilder()
              .version(HttpClient.Version.HTTP_1_1)
              .sslContext(TestCertificates.trusting(List.of(pair.certificate())))
              .build();
      String base = "https://localhost:" + server.address().getPort();
      List<HttpRequest> series =
          List.of(
              request(base + Route.SETTING.path(), body),
              request(base + Route.POD_FREEZE.path(), body),
              request(base + Route.POD_INJECTION.path(), body));
      List<String> names = List.of("no-op", "no-op, injection-sized answer", "injection");
      for (HttpRequest r : series) {
        closedLoop(client, r, WARMUP);
      }
      List<List<Result>> rounds =
          InterleavedRounds.run(series, ROUNDS, r -> closedLoop(client, r, ROUND));
      Result noopAt2k = openLoop(client, series.get(0), FIXED_PER_SECOND, FIXED_RATE);
      Result injectionAt2k = openLoop(client, series.get(2), FIXED_PER_SECOND, FIXED_RATE);
      System.out.printf(
          "%n== webhook load, %d clients, TLS keep-alive, %d cores, median of %d rounds of %d s ==%n",
          CLIENTS, Runtime.getRuntime().availableProcessors(), ROUNDS, ROUND.toSeconds());
      for (int s = 0; s < series.size(); s++) {
        System.out.printf("%-30s max: %s%n", names.get(s), median(rounds.get(s)));
      }
      double[] ratios = new double[ROUNDS];
      for (int round = 0; round < ROUNDS; round++) {
        ratios[round] = rounds.get(2).get(round).perSecond / rounds.get(0).get(round).perSecond;
      }
      Arrays.sort(ratios);
      // A round's two series ran seconds apart, so their ratio is the one drift touches least.
      System.out.printf(
          "injection/no-op throughput ratio: %.2f, median of the rounds (%.2f..%.2f);"
              + " of the medians %.2f; answer size alone: %.2f%n",
          (ratios[ROUNDS / 2 - 1] + ratios[ROUNDS / 2]) / 2,
          ratios[0],
          ratios[ROUNDS - 1],
          median(rounds.get(2)).perSecond / median(rounds.get(0)).perSecond,
          median(rounds.get(1)).perSecond / median(rounds.get(0)).perSecond);
      System.out.printf(
          "answer bytes: no-op %d, injection %d%n",
          JSON.writeValueAsBytes(Admission.respond("bench", Decision.allow(List.of()))).length,
          JSON.writeValueAsBytes(injected).length);
      System.out.println("no-op      @" + FIXED_PER_SECOND + "/s: " + noopAt2k);
      System.out.println("injection  @" + FIXED_PER_SECOND + "/s: " + injectionAt2k);
      long errors = noopAt2k.errors + injectionAt2k.errors;
      for (List<Result> r : rounds) {
        errors += r.stream().mapToLong(Result::errors).sum();
      }
      assertThat(errors).isZero();
    }
  }

  /** The round with the median throughput. */
  private static Result median(List<Result> rounds) {
    List<Result> sorted =
        rounds.stream().sorted(Comparator.comparingDouble(Result::perSecond)).toList();
    return sorted.get(sorted.size() / 2);
  }

  private static HttpRequest request(String uri, String body) {
    return HttpRequest.newBuilder(URI.create(uri))
        .header("Content-Type", "application/json")
        .POST(HttpRequest.BodyPublishers.ofString(body))
        .build();
  }

  record Result(
      double perSecond, double p50Millis, double p99Millis, long errors, double cpuMicros) {
    @Override
    public String toString() {
      return String.format(
          "%8.0f reviews/s  p50 %.3f ms  p99 %.3f ms  CPU %.0f us/review  errors %d",
          perSecond, p50Millis, p99Millis, cpuMicros, errors);
    }
  }

  /** CLIENTS workers sending back to back for {@code duration}. */
  private static Result closedLoop(HttpClient client, HttpRequest request, Duration duration)
      throws Exception {
    ExecutorService pool = Executors.newFixedThreadPool(CLIENTS);
    long end = System.nanoTime() + duration.toNanos();
    AtomicLong errors = new AtomicLong();
    List<Future<long[]>> workers = new ArrayList<>();
    long cpu = processCpuNanos();
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
    return summarize(all, seconds, errors.get(), processCpuNanos() - cpu);
  }

  /** Requests started at a fixed rate, latency measured from the scheduled start. */
  private static Result openLoop(
      HttpClient client, HttpRequest request, int perSecond, Duration duration) throws Exception {
    int total = (int) (perSecond * duration.toSeconds());
    long interval = 1_000_000_000L / perSecond;
    ExecutorService pool = Executors.newFixedThreadPool(64);
    long[] samples = new long[total];
    AtomicLong errors = new AtomicLong();
    long cpu = processCpuNanos();
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
    return summarize(List.of(samples), seconds, errors.get(), processCpuNanos() - cpu);
  }

  private static Result summarize(List<long[]> parts, double seconds, long errors, long cpuNanos) {
    long[] all = parts.stream().flatMapToLong(Arrays::stream).sorted().toArray();
    return new Result(
        all.length / seconds,
        all[all.length / 2] / 1e6,
        all[(int) (all.length * 0.99)] / 1e6,
        errors,
        cpuNanos / 1e3 / all.length);
  }

  /** CPU time of this whole process (server, load generator and the kernel's work for both). */
  private static long processCpuNanos() {
    return ((com.sun.management.OperatingSystemMXBean) ManagementFactory.getOperatingSystemMXBean())
        .getProcessCpuTime();
  }
}
