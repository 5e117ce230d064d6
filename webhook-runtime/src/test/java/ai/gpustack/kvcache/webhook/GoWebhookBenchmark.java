package ai.gpustack.kvcache.webhook;

import static org.assertj.core.api.Assertions.assertThat;

import ai.gpustack.kvcache.admission.Admission;
import ai.gpustack.kvcache.admission.Route;
import ai.gpustack.kvcache.cluster.MemoryClusterView;
import ai.gpustack.kvcache.spi.EngineRegistry;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.File;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.lang.management.ManagementFactory;
import java.net.ServerSocket;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.Base64;
import java.util.Comparator;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Our webhook against the stack a Go operator would use: a minimal Go webhook ({@code
 * src/bench/go}, standard library only) that decodes the review, looks the Pod's Binding up in a
 * map and answers a JSON Patch of the same size and shape as ours, built with the local {@code go}
 * and loaded by {@code wrk} (8 connections, keep-alive, TLS 1.3, one EC P-256 certificate for
 * both), in interleaved rounds alternating direction; medians of the rounds and CPU per review of
 * each server process, with the machine's load average beside every round. Needs {@code go}; {@code
 * wrk} comes from {@code tools/wrk/install.sh} (Debian's package, cached outside the work tree).
 * Run with {@code ./mvnw -B -Pbench verify -pl webhook-runtime -am}. Numbers are printed, never
 * asserted.
 */
class GoWebhookBenchmark {
  private static final ObjectMapper JSON = new ObjectMapper();
  private static final int CONNECTIONS = 8;
  private static final int WARMUP_SECONDS = 5;
  private static final int ROUNDS = Integer.getInteger("kvcache.bench.rounds", 8);
  private static final int ROUND_SECONDS = 4;
  private static final long CLOCK_TICKS = 100; // USER_HZ on Linux

  @TempDir Path dir;
  Path wrkBinary;

  record Series(String name, String url, long pid) {}

  /** One wrk run; {@code load} is the machine's 1-minute load average as it started. */
  record Round(
      double perSecond,
      double p50Millis,
      double p99Millis,
      long errors,
      double cpuMicros,
      double load) {
    @Override
    public String toString() {
      return String.format(
          "%8.0f reviews/s  p50 %.3f ms  p99 %.3f ms  CPU %.0f us/review  non-2xx %d",
          perSecond, p50Millis, p99Millis, cpuMicros, errors);
    }
  }

  @Test
  void injection_against_go() throws Exception {
    assertThat(onPath("go")).as("go is missing: this benchmark builds its Go webhook").isTrue();
    Path binary = buildGo();
    wrkBinary = installedWrk();

    Admission admission =
        new Admission(EngineRegistry.load(), MemoryClusterView.of(WebhookServerTest.cluster()));
    String body = WebhookServerTest.podReview("bench");
    JsonNode injected = admission.review(Route.POD_INJECTION, JSON.readTree(body));
    byte[] patch = Base64.getDecoder().decode(injected.path("response").path("patch").asText());
    Files.writeString(
        dir.resolve("patch.json"),
        new String(patch, StandardCharsets.UTF_8).replace("bfloat16", "{{dtype}}"));
    Files.writeString(
        dir.resolve("bindings.json"),
        "{\"team-a/cache\": {\"dtype\": \"bfloat16\", \"domain\": \"team-a\"}}");
    Path script = dir.resolve("review.lua");
    Files.writeString(
        script,
        """
        wrk.method = "POST"
        wrk.headers["Content-Type"] = "application/json"
        wrk.body = [[%s]]
        done = function(summary, latency, requests)
          io.write(string.format("RESULT %%d %%d %%d %%d %%d\\n", summary.requests,
            summary.duration, latency:percentile(50), latency:percentile(99),
            summary.errors.status + summary.errors.connect + summary.errors.read
              + summary.errors.write + summary.errors.timeout))
        end
        """
            .formatted(body));

    TestCertificates.Pair pair = TestCertificates.write(dir, "localhost", "EC");
    WebhookServer.Reviewer reviewer =
        (route, review) ->
            route == Route.SETTING ? BenchServer.allowed(review) : admission.review(route, review);
    int goPort = freePort();
    Process go =
        new ProcessBuilder(
                binary.toString(),
                "127.0.0.1:" + goPort,
                pair.cert().toString(),
                pair.key().toString(),
                dir.resolve("bindings.json").toString(),
                dir.resolve("patch.json").toString())
            .redirectErrorStream(true)
            .redirectOutput(dir.resolve("go.log").toFile())
            .start();
    try (WebhookServer ours = BenchServer.start(pair, reviewer)) {
      awaitListening(goPort);
      long self = ProcessHandle.current().pid();
      String base = "https://127.0.0.1:" + ours.address().getPort();
      String goBase = "https://127.0.0.1:" + goPort;
      List<Series> series =
          List.of(
              new Series("go no-op", goBase + "/no-op", go.pid()),
              new Series("go injection", goBase + "/mutate/pods", go.pid()),
              new Series("our no-op", base + Route.SETTING.path(), self),
              new Series("our injection", base + Route.POD_INJECTION.path(), self));
      for (Series s : series) {
        wrk(script, s, WARMUP_SECONDS);
      }
      List<List<Round>> rounds =
          InterleavedRounds.run(series, ROUNDS, s -> wrk(script, s, ROUND_SECONDS));
      System.out.printf(
          "%n== webhook against Go (%s), wrk %d connections, TLS 1.3, %d cores, median of %d"
              + " rounds of %d s ==%n",
          goVersion(),
          CONNECTIONS,
          Runtime.getRuntime().availableProcessors(),
          ROUNDS,
          ROUND_SECONDS);
      for (int s = 0; s < series.size(); s++) {
        System.out.printf("%-15s %s%n", series.get(s).name(), median(rounds.get(s)));
      }
      System.out.printf(
          "answer patch bytes: ours %d, go's %d%n",
          patch.length, goPatchLength(goBase, script, pair));
      System.out.printf(
          "ratio injection/go: %.2f (rounds %s)%n",
          medianRatio(rounds.get(3), rounds.get(1)), range(rounds.get(3), rounds.get(1)));
      System.out.printf(
          "ratio injection/no-op: %.2f (rounds %s)%n",
          medianRatio(rounds.get(3), rounds.get(2)), range(rounds.get(3), rounds.get(2)));
      System.out.printf("ratio no-op/go no-op: %.2f%n", medianRatio(rounds.get(2), rounds.get(0)));
      System.out.println("rounds (reviews/s, and the 1-minute load average as each started):");
      for (int r = 0; r < ROUNDS; r++) {
        StringBuilder line = new StringBuilder("  round " + (r + 1) + ":");
        for (int k = 0; k < series.size(); k++) {
          Round round = rounds.get(k).get(r);
          line.append(
              String.format(
                  "  %s %.0f (load %.2f)", series.get(k).name(), round.perSecond(), round.load()));
        }
        System.out.println(line);
      }
      long errors = rounds.stream().flatMap(List::stream).mapToLong(Round::errors).sum();
      assertThat(errors).as("non-2xx answers").isZero();
    } finally {
      go.destroy();
      go.waitFor(10, TimeUnit.SECONDS);
    }
  }

  /** wrk as tools/wrk/install.sh fetches it into the cache, or the script's own reason why not. */
  private static Path installedWrk() {
    try {
      Process p =
          new ProcessBuilder(Path.of("..", "tools", "wrk", "install.sh").toString())
              .redirectErrorStream(true)
              .start();
      List<String> out =
          new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8).lines().toList();
      assertThat(p.waitFor(5, TimeUnit.MINUTES)).isTrue();
      assertThat(p.exitValue()).as("tools/wrk/install.sh: " + String.join("\n", out)).isZero();
      return Path.of(out.get(out.size() - 1).substring("wrk: ".length()));
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new IllegalStateException(e);
    }
  }

  /** Builds src/bench/go offline into target/, with its build cache there too. */
  private static Path buildGo() throws Exception {
    Path source = Path.of("src", "bench", "go").toAbsolutePath();
    Path binary = Path.of("target", "kvcache-go-webhook").toAbsolutePath();
    ProcessBuilder build =
        new ProcessBuilder("go", "build", "-o", binary.toString(), ".")
            .directory(source.toFile())
            .redirectErrorStream(true);
    build.environment().put("GOCACHE", Path.of("target", "gocache").toAbsolutePath().toString());
    build.environment().put("GOFLAGS", "-mod=mod");
    build.environment().put("GOPROXY", "off");
    build.environment().put("CGO_ENABLED", "0");
    Process p = build.start();
    String output = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
    assertThat(p.waitFor(5, TimeUnit.MINUTES)).isTrue();
    assertThat(p.exitValue()).as(output).isZero();
    return binary;
  }

  private static final Pattern RESULT =
      Pattern.compile("RESULT (\\d+) (\\d+) (\\d+) (\\d+) (\\d+)");

  /** One wrk run against {@code s}; the server process's CPU time over it, per review. */
  private Round wrk(Path script, Series s, int seconds) throws Exception {
    double load = Double.parseDouble(Files.readString(Path.of("/proc/loadavg")).split(" ")[0]);
    long cpu = cpuNanos(s.pid());
    Process wrk =
        new ProcessBuilder(
                wrkBinary.toString(),
                "-t2",
                "-c" + CONNECTIONS,
                "-d" + seconds + "s",
                "-s",
                script.toString(),
                s.url())
            .redirectErrorStream(true)
            .start();
    String output = new String(wrk.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
    assertThat(wrk.waitFor(seconds + 30L, TimeUnit.SECONDS)).isTrue();
    long used = cpuNanos(s.pid()) - cpu;
    Matcher m = RESULT.matcher(output);
    assertThat(m.find()).as(output).isTrue();
    long requests = Long.parseLong(m.group(1));
    double durationSeconds = Long.parseLong(m.group(2)) / 1e6;
    return new Round(
        requests / durationSeconds,
        Long.parseLong(m.group(3)) / 1e3,
        Long.parseLong(m.group(4)) / 1e3,
        Long.parseLong(m.group(5)),
        used / 1e3 / requests,
        load);
  }

  /** CPU time (user + system) of process {@code pid}, from /proc. */
  private static long cpuNanos(long pid) throws IOException {
    if (pid == ProcessHandle.current().pid()) {
      return ((com.sun.management.OperatingSystemMXBean)
              ManagementFactory.getOperatingSystemMXBean())
          .getProcessCpuTime();
    }
    String stat = Files.readString(Path.of("/proc", String.valueOf(pid), "stat"));
    // fields after the command name, which is in parentheses and may hold spaces
    String[] f = stat.substring(stat.lastIndexOf(')') + 2).split(" ");
    long ticks = Long.parseLong(f[11]) + Long.parseLong(f[12]);
    return ticks * (1_000_000_000L / CLOCK_TICKS);
  }

  /** The size of the patch Go answers, decoded. */
  private static int goPatchLength(String goBase, Path script, TestCertificates.Pair pair)
      throws Exception {
    var client = TestCertificates.client(List.of(pair.certificate()));
    String body = Files.readString(script);
    String review = body.substring(body.indexOf("[[") + 2, body.indexOf("]]"));
    JsonNode answer =
        JSON.readTree(
            client
                .send(
                    java.net.http.HttpRequest.newBuilder(
                            java.net.URI.create(goBase + "/mutate/pods"))
                        .header("Content-Type", "application/json")
                        .POST(java.net.http.HttpRequest.BodyPublishers.ofString(review))
                        .build(),
                    java.net.http.HttpResponse.BodyHandlers.ofString())
                .body());
    return Base64.getDecoder().decode(answer.path("response").path("patch").asText()).length;
  }

  private static Round median(List<Round> rounds) {
    List<Round> sorted =
        rounds.stream().sorted(Comparator.comparingDouble(Round::perSecond)).toList();
    return sorted.get(sorted.size() / 2);
  }

  /** The median of the rounds' ratios: a round's two series ran seconds apart. */
  private static double medianRatio(List<Round> a, List<Round> b) {
    double[] r = ratios(a, b);
    return r.length % 2 == 1 ? r[r.length / 2] : (r[r.length / 2 - 1] + r[r.length / 2]) / 2;
  }

  private static String range(List<Round> a, List<Round> b) {
    double[] r = ratios(a, b);
    return String.format("%.2f..%.2f", r[0], r[r.length - 1]);
  }

  private static double[] ratios(List<Round> a, List<Round> b) {
    double[] r = new double[a.size()];
    for (int i = 0; i < r.length; i++) {
      r[i] = a.get(i).perSecond() / b.get(i).perSecond();
    }
    Arrays.sort(r);
    return r;
  }

  private static String goVersion() throws Exception {
    Process p = new ProcessBuilder("go", "version").redirectErrorStream(true).start();
    String v = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8).strip();
    p.waitFor(30, TimeUnit.SECONDS);
    return v.replace("go version ", "");
  }

  private static void awaitListening(int port) throws InterruptedException {
    for (int i = 0; i < 100; i++) {
      try (Socket s = new Socket("127.0.0.1", port)) {
        if (s.isConnected()) {
          return;
        }
      } catch (IOException e) {
        Thread.sleep(100);
      }
    }
    throw new AssertionError("the Go webhook did not listen on " + port);
  }

  private static int freePort() throws IOException {
    try (ServerSocket s = new ServerSocket(0)) {
      return s.getLocalPort();
    }
  }

  private static boolean onPath(String program) {
    return Arrays.stream(System.getenv().getOrDefault("PATH", "").split(File.pathSeparator))
        .anyMatch(d -> Files.isExecutable(Path.of(d, program)));
  }
}
