package ai.gpustack.kvcache.operator;

import static org.assertj.core.api.Assertions.assertThat;

import ai.gpustack.kvcache.admission.Admission;
import ai.gpustack.kvcache.admission.Route;
import ai.gpustack.kvcache.cluster.MemoryClusterView;
import ai.gpustack.kvcache.operator.certs.WebhookCertificate;
import ai.gpustack.kvcache.operator.e2e.ControlPlane;
import ai.gpustack.kvcache.operator.e2e.Installation;
import ai.gpustack.kvcache.operator.e2e.OperatorProcess;
import ai.gpustack.kvcache.resources.KVCacheBackend;
import ai.gpustack.kvcache.resources.KVCachePool;
import ai.gpustack.kvcache.resources.KVCachePoolBinding;
import ai.gpustack.kvcache.resources.Keys;
import ai.gpustack.kvcache.spi.EngineRegistry;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.fabric8.kubernetes.api.model.HasMetadata;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.client.KubernetesClient;
import java.io.IOException;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Base64;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.TreeMap;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.Predicate;
import org.junit.jupiter.api.Test;

/**
 * Our Pod-injection webhook as the real API server times it, beside a minimal Go handler ({@code
 * webhook-runtime/src/bench/go}, Go's standard library, answering a patch of the same size and
 * shape) registered the same way: one fresh control plane, the operator installed as shipped (its
 * webhook inside {@code kvcache run}), the Go handler on loopback under a second {@code
 * MutatingWebhookConfiguration} selecting Pods by a label of its own. Pod creates from 8 clients in
 * interleaved rounds alternating direction; per series, kube-apiserver's own {@code
 * apiserver_admission_webhook_admission_duration_seconds} (p50 and p99 as Prometheus interpolates
 * them, and the mean from its sum and count: its buckets start at 5 ms), creates/s and the clients'
 * round trip, with the machine's load average beside every round. Numbers are printed, not
 * asserted. Needs Go.
 */
class AdmissionBenchmark {
  static final ObjectMapper JSON = new ObjectMapper();
  static final String NS = "admission-bench";
  static final String OURS = "pod-injection.kvcache.gpustack.ai";
  static final String GO = "pod-injection.go-bench.kvcache.gpustack.ai";
  static final String GO_LABEL = "bench.kvcache.gpustack.ai/go-inject";
  static final int CLIENTS = 8;
  static final int ROUNDS = Integer.getInteger("kvcache.bench.rounds", 6);
  static final int CREATES_PER_ROUND = Integer.getInteger("kvcache.bench.creates", 400);
  static final Path WORK = Path.of("target", "bench", "admission").toAbsolutePath();

  /** One series' round: the API server's histogram deltas, and what the clients saw. */
  record Round(
      double creates,
      double seconds,
      Histogram webhook,
      Optional<Histogram> handler,
      List<Double> roundTrips,
      double load,
      long accepted,
      double cpuSeconds) {
    double perSecond() {
      return creates / seconds;
    }
  }

  /** The {@code q} quantile of {@code values}, nearest rank. */
  static double quantile(List<Double> values, double q) {
    List<Double> sorted = values.stream().sorted().toList();
    return sorted.get(Math.max(0, (int) Math.ceil(q * sorted.size()) - 1));
  }

  @Test
  void podCreatesThroughTheApiServer() throws Exception {
    Files.createDirectories(WORK);
    Path goWebhook = buildGoWebhook();
    try (ControlPlane cluster = ControlPlane.start("kvcache-admission");
        Installation installed = Installation.on(cluster)) {
      KubernetesClient admin = cluster.admin();
      Shell kubectl = installed.admin("admission-bench");
      Files.writeString(
          kubectl.home().resolve("store.yaml"),
          "apiVersion: v1\nkind: Namespace\nmetadata: {name: "
              + NS
              + "}\n---\n"
              + TestObjects.store(NS, "chat"));
      kubectl.kubectl("apply -f store.yaml").ok();
      kubectl.until(
          "kubectl get serviceaccount default -n " + NS,
          r -> r.exit() == 0,
          Duration.ofSeconds(60));
      kubectl.until(
          "kubectl get kvcachepool shared -o jsonpath={.status.clientEndpoint}",
          r -> !r.out().isBlank(),
          Duration.ofSeconds(60));

      WebhookCertificate cert = WebhookCertificate.issue(List.of("127.0.0.1"), Instant.now());
      Path certFile = Files.writeString(WORK.resolve("tls.crt"), cert.tlsCert());
      Path keyFile = Files.writeString(WORK.resolve("tls.key"), cert.tlsKey());
      writeGoInputs(admin);
      int goPort = OperatorBenchmark.freePort();
      Process go =
          new ProcessBuilder(
                  goWebhook.toString(),
                  "127.0.0.1:" + goPort,
                  certFile.toString(),
                  keyFile.toString(),
                  WORK.resolve("bindings.json").toString(),
                  WORK.resolve("patch.json").toString())
              .redirectErrorStream(true)
              .redirectOutput(WORK.resolve("go-webhook.log").toFile())
              .start();
      try {
        awaitListening(goPort);
        Files.writeString(kubectl.home().resolve("go-webhook.yaml"), goRegistration(goPort, cert));
        kubectl.kubectl("apply -f go-webhook.yaml").ok();
        List<String> series = List.of(OURS, GO);
        Map<String, Optional<OperatorProcess>> handlers =
            Map.of(OURS, Optional.of(installed.operator()), GO, Optional.empty());
        Map<String, Long> pids = Map.of(OURS, installed.operator().pid(), GO, go.pid());
        for (String s : series) {
          // warm-up: connections, JIT, the API server's caches
          round(admin, kubectl, s, pids.get(s), handlers.get(s), 100);
        }
        List<List<Round>> rounds = new ArrayList<>(List.of(new ArrayList<>(), new ArrayList<>()));
        for (int r = 0; r < ROUNDS; r++) {
          for (int k = 0; k < series.size(); k++) {
            int s = r % 2 == 0 ? k : series.size() - 1 - k;
            String name = series.get(s);
            rounds
                .get(s)
                .add(
                    round(
                        admin,
                        kubectl,
                        name,
                        pids.get(name),
                        handlers.get(name),
                        CREATES_PER_ROUND));
          }
        }
        report(series, rounds);
      } finally {
        go.destroy();
        go.waitFor(10, TimeUnit.SECONDS);
      }
    }
  }

  /**
   * {@code creates} Pods selected by {@code webhook}, from {@link #CLIENTS} clients at once: the
   * CPU of the process serving it ({@code pid}), and with {@code operator}, its handler's own time.
   */
  static Round round(
      KubernetesClient admin,
      Shell kubectl,
      String webhook,
      long pid,
      Optional<OperatorProcess> operator,
      int creates)
      throws Exception {
    double load = Double.parseDouble(Files.readString(Path.of("/proc/loadavg")).split(" ")[0]);
    Histogram before = Histogram.scrape(kubectl, webhook);
    Optional<Histogram> handlerBefore = operator.map(Histogram::handler);
    long acceptedBefore = passiveOpens();
    long cpuBefore = OperatorBenchmark.cpuNanos(pid);
    AtomicInteger next = new AtomicInteger();
    ExecutorService clients = Executors.newFixedThreadPool(CLIENTS);
    long start = System.nanoTime();
    List<Future<List<Double>>> done = new ArrayList<>();
    for (int c = 0; c < CLIENTS; c++) {
      done.add(
          clients.submit(
              () -> {
                List<Double> millis = new ArrayList<>();
                while (next.getAndIncrement() < creates) {
                  long t = System.nanoTime();
                  Pod created = admin.resource(pod(webhook)).create();
                  millis.add((System.nanoTime() - t) / 1e6);
                  assertThat(created.getSpec().getContainers().get(0).getArgs())
                      .as("the answer's patch applied")
                      .contains("--kv-cache-dtype");
                }
                return millis;
              }));
    }
    List<Double> roundTrips = new ArrayList<>();
    for (Future<List<Double>> f : done) {
      roundTrips.addAll(f.get(10, TimeUnit.MINUTES));
    }
    double seconds = (System.nanoTime() - start) / 1e9;
    clients.shutdown();
    Histogram webhookTime = Histogram.scrape(kubectl, webhook).minus(before);
    assertThat(webhookTime.count()).as("admission calls of " + webhook).isEqualTo(creates);
    Optional<Histogram> handlerTime =
        operator.map(o -> Histogram.handler(o).minus(handlerBefore.orElseThrow()));
    long accepted = passiveOpens() - acceptedBefore;
    double cpu = (OperatorBenchmark.cpuNanos(pid) - cpuBefore) / 1e9;
    admin.pods().inNamespace(NS).withGracePeriod(0).delete();
    return new Round(creates, seconds, webhookTime, handlerTime, roundTrips, load, accepted, cpu);
  }

  /**
   * TCP connections this machine has accepted (/proc/net/snmp's PassiveOpens): the API server's new
   * connections to a webhook show here, each one a TLS handshake.
   */
  static long passiveOpens() throws IOException {
    List<String> tcp =
        Files.readAllLines(Path.of("/proc/net/snmp")).stream()
            .filter(l -> l.startsWith("Tcp:"))
            .toList();
    List<String> names = List.of(tcp.get(0).split(" "));
    return Long.parseLong(tcp.get(1).split(" ")[names.indexOf("PassiveOpens")]);
  }

  /** An opted-in vLLM Pod, labelled for {@code webhook}, bound to no node (nothing runs it). */
  static Pod pod(String webhook) {
    String label = webhook.equals(OURS) ? Keys.INJECT : GO_LABEL;
    return TestObjects.objects(
            """
            apiVersion: v1
            kind: Pod
            metadata:
              generateName: p-
              namespace: %s
              labels: {"%s": "true"}
              annotations: {kvcache.gpustack.ai/binding: chat, kvcache.gpustack.ai/engine: vLLM}
            spec:
              nodeName: admission-bench-nowhere
              containers: [{name: vllm, image: vllm/vllm-openai:v0.11.0, command: [vllm], args: [serve, m]}]
            """
                .formatted(NS, label))
        .stream()
        .map(Pod.class::cast)
        .findFirst()
        .orElseThrow();
  }

  /**
   * The Go handler's inputs: the Binding's values, and our webhook's own answer patch for the
   * benchmark's Pod (computed here from the cluster's Binding, pool and backend) with the dtype
   * made a placeholder, so both answer patches of one size and shape.
   */
  static void writeGoInputs(KubernetesClient admin) throws IOException {
    List<HasMetadata> store = new ArrayList<>();
    store.addAll(admin.resources(KVCacheBackend.class).list().getItems());
    store.addAll(admin.resources(KVCachePool.class).list().getItems());
    store.addAll(admin.resources(KVCachePoolBinding.class).inNamespace(NS).list().getItems());
    Admission admission = new Admission(EngineRegistry.load(), MemoryClusterView.of(store));
    Pod pod = pod(OURS);
    pod.getMetadata().setName("p-template");
    ObjectNode review = JSON.createObjectNode();
    review.put("apiVersion", "admission.k8s.io/v1").put("kind", "AdmissionReview");
    ObjectNode request = review.putObject("request");
    request.put("uid", "template").put("operation", "CREATE").put("namespace", NS);
    request.putObject("kind").put("group", "").put("version", "v1").put("kind", "Pod");
    request.set("object", JSON.valueToTree(pod));
    JsonNode answer = admission.review(Route.POD_INJECTION, review);
    assertThat(answer.path("response").path("allowed").asBoolean()).as(answer.toString()).isTrue();
    byte[] patch = Base64.getDecoder().decode(answer.path("response").path("patch").asText());
    Files.writeString(
        WORK.resolve("patch.json"),
        new String(patch, StandardCharsets.UTF_8).replace("bfloat16", "{{dtype}}"));
    Files.writeString(
        WORK.resolve("bindings.json"),
        "{\"" + NS + "/chat\": {\"dtype\": \"bfloat16\", \"domain\": \"chat\"}}");
  }

  /** The Go handler registered as ours is, but for its name, label and loopback URL. */
  static String goRegistration(int port, WebhookCertificate cert) {
    return """
        apiVersion: admissionregistration.k8s.io/v1
        kind: MutatingWebhookConfiguration
        metadata: {name: go-bench}
        webhooks:
          - name: %s
            admissionReviewVersions: [v1]
            clientConfig: {url: "https://127.0.0.1:%d/mutate/pods", caBundle: %s}
            failurePolicy: Fail
            matchPolicy: Equivalent
            namespaceSelector:
              matchExpressions: [{key: kubernetes.io/metadata.name, operator: NotIn, values: [gpustack-system, kube-system]}]
            objectSelector:
              matchExpressions: [{key: %s, operator: In, values: ["true"]}]
            reinvocationPolicy: Never
            rules: [{apiGroups: [""], apiVersions: [v1], operations: [CREATE], resources: [pods], scope: Namespaced}]
            sideEffects: None
            timeoutSeconds: 10
        """
        .formatted(
            GO,
            port,
            Base64.getEncoder().encodeToString(cert.caCert().getBytes(StandardCharsets.UTF_8)),
            GO_LABEL);
  }

  static void report(List<String> series, List<List<Round>> rounds) {
    System.out.printf(
        "%n== Pod creates through kube-apiserver, %d clients, %d interleaved rounds of %d ==%n",
        CLIENTS, ROUNDS, CREATES_PER_ROUND);
    List<Histogram> total = new ArrayList<>();
    for (int s = 0; s < series.size(); s++) {
      List<Round> rs = rounds.get(s);
      Histogram h = rs.stream().map(Round::webhook).reduce(Histogram::plus).orElseThrow();
      total.add(h);
      double creates = rs.stream().mapToDouble(Round::creates).sum();
      double seconds = rs.stream().mapToDouble(Round::seconds).sum();
      List<Double> trips = rs.stream().flatMap(r -> r.roundTrips().stream()).toList();
      System.out.printf(
          "%-45s admission p50 %.2f ms, p99 %.2f ms, mean %.3f ms (API server); %.0f creates/s;"
              + " create round trip p50 %.1f ms, p99 %.1f ms%n",
          series.get(s),
          h.quantile(0.5) * 1e3,
          h.quantile(0.99) * 1e3,
          h.mean() * 1e3,
          creates / seconds,
          quantile(trips, 0.5),
          quantile(trips, 0.99));
      System.out.printf(
          "%-45s CPU of its process %.2f ms per create%n",
          "", rs.stream().mapToDouble(Round::cpuSeconds).sum() * 1e3 / creates);
      rs.stream()
          .flatMap(r -> r.handler().stream())
          .reduce(Histogram::plus)
          .ifPresent(
              own ->
                  System.out.printf(
                      "%-45s its own handler time p50 %.2f ms, p99 %.2f ms, mean %.3f ms (its"
                          + " /metrics: body read to answer, no TLS or wire)%n",
                      "", own.quantile(0.5) * 1e3, own.quantile(0.99) * 1e3, own.mean() * 1e3));
    }
    System.out.println(
        "rounds (creates/s, the 1-minute load average as each started, TCP connections the machine"
            + " accepted during it, CPU of the webhook's process per create):");
    for (int r = 0; r < ROUNDS; r++) {
      StringBuilder line = new StringBuilder("  round " + (r + 1) + ":");
      for (int s = 0; s < series.size(); s++) {
        Round round = rounds.get(s).get(r);
        line.append(
            String.format(
                "  %s %.0f/s (load %.2f, %d accepted, %.2f ms CPU)",
                s == 0 ? "ours" : "go",
                round.perSecond(),
                round.load(),
                round.accepted(),
                round.cpuSeconds() * 1e3 / round.creates()));
      }
      System.out.println(line);
    }
    Histogram ours = total.get(0);
    Histogram go = total.get(1);
    System.out.printf(
        "ratio admission latency p99 go/ours: %.2f (mean go/ours %.2f; buckets: ours %s, go %s)%n",
        go.quantile(0.99) / ours.quantile(0.99),
        go.mean() / ours.mean(),
        ours.buckets(),
        go.buckets());
  }

  /**
   * kube-apiserver's {@code apiserver_admission_webhook_admission_duration_seconds} for one webhook
   * (admit calls): cumulative counts by upper bound, sum and count.
   */
  record Histogram(TreeMap<Double, Double> cumulative, double sum, double count) {
    static final String METRIC = "apiserver_admission_webhook_admission_duration_seconds";

    static Histogram scrape(Shell kubectl, String webhook) {
      String selector = "name=\"" + webhook + "\"";
      return parse(
          kubectl.kubectl("get --raw /metrics").ok().out(),
          METRIC,
          line -> line.contains(selector) && line.contains("type=\"admit\""));
    }

    /**
     * Our handler's own time, from the operator's {@code kvcache_admission_duration_seconds}: the
     * review from its last byte read to its answer, without TLS, the wire or the API server.
     */
    static Histogram handler(OperatorProcess operator) {
      return parse(
          OperatorBenchmark.scrape(operator.healthPort()),
          "kvcache_admission_duration_seconds",
          line -> line.contains("handler=\"pod_injection\""));
    }

    /**
     * The histogram {@code metric} in Prometheus text, summed over the lines {@code keep} takes.
     */
    static Histogram parse(String text, String metric, Predicate<String> keep) {
      TreeMap<Double, Double> buckets = new TreeMap<>();
      double sum = 0;
      double count = 0;
      for (String line : text.lines().toList()) {
        if (!line.startsWith(metric) || !keep.test(line)) {
          continue;
        }
        double value = Double.parseDouble(line.substring(line.lastIndexOf(' ') + 1));
        if (line.startsWith(metric + "_bucket")) {
          String le = line.replaceAll(".*le=\"([^\"]+)\".*", "$1");
          buckets.merge(
              le.equals("+Inf") ? Double.POSITIVE_INFINITY : Double.parseDouble(le),
              value,
              Double::sum);
        } else if (line.startsWith(metric + "_sum")) {
          sum += value;
        } else if (line.startsWith(metric + "_count")) {
          count += value;
        }
      }
      return new Histogram(buckets, sum, count);
    }

    Histogram minus(Histogram earlier) {
      return combine(earlier, -1);
    }

    Histogram plus(Histogram other) {
      return combine(other, 1);
    }

    private Histogram combine(Histogram other, int sign) {
      TreeMap<Double, Double> c = new TreeMap<>(cumulative);
      other.cumulative.forEach((le, v) -> c.merge(le, sign * v, Double::sum));
      return new Histogram(c, sum + sign * other.sum, count + sign * other.count);
    }

    double mean() {
      return sum / count;
    }

    /** As Prometheus's histogram_quantile: linear within the bucket the rank falls in. */
    double quantile(double q) {
      double rank = q * count;
      double lower = 0;
      double below = 0;
      for (Map.Entry<Double, Double> b : cumulative.entrySet()) {
        if (b.getValue() >= rank) {
          if (b.getKey().isInfinite()) {
            return lower;
          }
          return lower + (b.getKey() - lower) * (rank - below) / (b.getValue() - below);
        }
        lower = b.getKey();
        below = b.getValue();
      }
      return lower;
    }

    /** Calls per bucket, by its upper bound in ms, the empty ones left out. */
    String buckets() {
      StringBuilder out = new StringBuilder();
      double below = 0;
      for (Map.Entry<Double, Double> b : cumulative.entrySet()) {
        double in = b.getValue() - below;
        below = b.getValue();
        if (in > 0) {
          out.append(out.isEmpty() ? "" : " ")
              .append(
                  b.getKey().isInfinite()
                      ? "+Inf"
                      : "≤" + String.format("%.0f", b.getKey() * 1e3) + "ms")
              .append(':')
              .append(String.format("%.0f", in));
        }
      }
      return out.toString();
    }
  }

  /** Builds webhook-runtime/src/bench/go into target/bench. */
  static Path buildGoWebhook() throws Exception {
    Path out = WORK.resolve("kvcache-go-webhook");
    ProcessBuilder build =
        new ProcessBuilder("go", "build", "-o", out.toString(), ".")
            .directory(Path.of("..", "webhook-runtime", "src", "bench", "go").toFile())
            .redirectErrorStream(true)
            .redirectOutput(WORK.resolve("go-webhook-build.log").toFile());
    build.environment().put("CGO_ENABLED", "0");
    build.environment().put("GOFLAGS", "-buildvcs=false -mod=readonly -trimpath");
    Process p;
    try {
      p = build.start();
    } catch (IOException e) {
      throw new IllegalStateException("go is missing: this benchmark builds its Go webhook", e);
    }
    assertThat(p.waitFor(10, TimeUnit.MINUTES)).isTrue();
    assertThat(p.exitValue())
        .as("go build: " + Files.readString(WORK.resolve("go-webhook-build.log")))
        .isZero();
    return out;
  }

  static void awaitListening(int port) throws InterruptedException {
    for (int i = 0; i < 100; i++) {
      try {
        new Socket("127.0.0.1", port).close();
        return;
      } catch (IOException e) {
        Thread.sleep(100);
      }
    }
    throw new AssertionError("the Go webhook did not listen on " + port);
  }
}
