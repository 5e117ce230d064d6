package ai.gpustack.kvcache.operator;

import static org.assertj.core.api.Assertions.assertThat;

import ai.gpustack.kvcache.api.ModelDeploymentStatus;
import ai.gpustack.kvcache.api.Settings;
import ai.gpustack.kvcache.cluster.MemoryClusterView;
import ai.gpustack.kvcache.operator.cli.ShippedJar;
import ai.gpustack.kvcache.operator.e2e.ControlPlane;
import ai.gpustack.kvcache.operator.e2e.Installation;
import ai.gpustack.kvcache.operator.render.PodRenderer;
import ai.gpustack.kvcache.resources.Keys;
import ai.gpustack.kvcache.resources.KvCacheSerialization;
import ai.gpustack.kvcache.resources.ModelDeployment;
import ai.gpustack.kvcache.resources.Pods;
import ai.gpustack.kvcache.resources.Setting;
import ai.gpustack.kvcache.spi.EngineRegistry;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.fabric8.kubernetes.api.model.HasMetadata;
import io.fabric8.kubernetes.api.model.NamespaceBuilder;
import io.fabric8.kubernetes.api.model.NodeBuilder;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.Quantity;
import io.fabric8.kubernetes.client.Config;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.KubernetesClientBuilder;
import io.fabric8.kubernetes.client.KubernetesClientException;
import io.fabric8.kubernetes.client.informers.ResourceEventHandler;
import io.fabric8.kubernetes.client.informers.SharedIndexInformer;
import io.fabric8.kubernetes.client.utils.KubernetesSerialization;
import io.javaoperatorsdk.operator.Operator;
import io.javaoperatorsdk.operator.api.config.informer.InformerEventSourceConfiguration;
import io.javaoperatorsdk.operator.api.reconciler.Context;
import io.javaoperatorsdk.operator.api.reconciler.ControllerConfiguration;
import io.javaoperatorsdk.operator.api.reconciler.EventSourceContext;
import io.javaoperatorsdk.operator.api.reconciler.Reconciler;
import io.javaoperatorsdk.operator.api.reconciler.UpdateControl;
import io.javaoperatorsdk.operator.monitoring.micrometer.MicrometerMetrics;
import io.javaoperatorsdk.operator.processing.event.ResourceID;
import io.javaoperatorsdk.operator.processing.event.source.EventSource;
import io.javaoperatorsdk.operator.processing.event.source.informer.InformerEventSource;
import io.micrometer.prometheusmetrics.PrometheusMeterRegistry;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.EnumMap;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.TreeMap;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import java.util.function.Predicate;
import java.util.regex.Pattern;
import java.util.stream.Collectors;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;

/**
 * The reference operator at fleet scale on the real control plane ({@code tools/control-plane}:
 * etcd, kube-apiserver, controller-manager, scheduler, KWOK nodes), beside two controllers doing
 * the same work: our Java Operator SDK floor ({@link FloorReconciler}) and a Go controller on
 * controller-runtime ({@code src/bench/go}, built here into target/). Each of the three runs in a
 * process of its own, on a fresh cluster, at each size of {@code kvcache.bench.series}
 * (250,500,1000,2000) deployments × 4 replicas. Per phase (cold start to every Pod Ready, the roll
 * after the Setting turns off, the roll back after it turns on): wall time, CPU of the controller
 * (of a JVM's, what its JIT compiler threads and its VM thread took), of kube-apiserver and of etcd
 * (from /proc), API requests per deployment by verb and resource (from the API server's audit log,
 * by user agent; watches and the Lease left out), reconciles per deployment; after the last phase,
 * heap after a full GC (the Java processes) and RSS. Prints the ratios at the largest size, and
 * writes the series into docs/operating.md's Capacity table. Numbers are printed, not asserted. Run
 * with {@code ./mvnw -B -Pbench verify -pl operator-runtime -am}; needs Go (the control plane and
 * the yardstick are built with it).
 */
class OperatorBenchmark {
  static final List<Integer> SIZES =
      List.of(System.getProperty("kvcache.bench.series", "250,500,1000,2000").split(",")).stream()
          .map(s -> Integer.parseInt(s.strip()))
          .toList();
  static final int REPLICAS = 4;
  static final Duration PATIENCE = Duration.ofMinutes(20);
  static final Path WORK = Path.of("target", "bench").toAbsolutePath();
  static final String NAMESPACE = "bench";

  static final String BASE = TestObjects.store(NAMESPACE, "fleet");

  static String deployment(int i) {
    return """
        apiVersion: worker.gpustack.ai/v1
        kind: ModelDeployment
        metadata: {name: md-%04d, namespace: bench}
        spec:
          model: {name: org/model-%d}
          engine: {name: vllm, version: 0.11.0}
          kvCache: {poolRef: {name: fleet}}
          roles: [{name: server, replicas: %d}]
        """
        .formatted(i, i, REPLICAS);
  }

  /** The three controllers, each named in the audit log by its user agent. */
  enum Controller {
    OPERATOR("operator", "kvcache-operator/bench"),
    JAVA_FLOOR("java floor", "java-floor"),
    GO("go", "go-yardstick");

    final String label;
    final String userAgent;

    Controller(String label, String userAgent) {
      this.label = label;
      this.userAgent = userAgent;
    }
  }

  /**
   * CPU seconds over one phase: the controller's process, kube-apiserver and etcd; of the
   * controller's, what a JVM spent compiling and in the VM thread (where Serial GC collects).
   */
  record Cpu(double controller, double apiserver, double etcd, double jit, double vm) {
    @Override
    public String toString() {
      return String.format(
          "CPU controller %.1f s%s, kube-apiserver %.1f s, etcd %.1f s",
          controller,
          jit + vm > 0 ? " (JIT %.1f s, VM thread and GC %.1f s)".formatted(jit, vm) : "",
          apiserver,
          etcd);
    }
  }

  /** One phase of one run: its wall time, reconciles, CPU and the controller's API requests. */
  record Phase(Duration wall, double reconciles, Cpu cpu, Map<String, Long> requests) {
    double seconds() {
      return wall.toNanos() / 1e9;
    }

    long requestCount() {
      return requests.values().stream().mapToLong(Long::longValue).sum();
    }
  }

  /** What one controller took on one fresh cluster. */
  record Result(
      Controller who,
      int deployments,
      Phase coldStart,
      Phase off,
      Phase on,
      Optional<Double> heapMiB,
      double rssMiB) {
    double roll() {
      return off.seconds() + on.seconds();
    }

    double reconcilesPerDeploymentPerRoll() {
      return (off.reconciles() + on.reconciles()) / 2 / deployments;
    }

    double requestsPerDeployment() {
      return (double) (coldStart.requestCount() + off.requestCount() + on.requestCount())
          / deployments;
    }
  }

  @Test
  void onTheRealControlPlane() throws Exception {
    Files.createDirectories(WORK);
    Path yardstick = buildYardstick();
    Path policy = WORK.resolve("audit-policy.yaml");
    Files.writeString(policy, AUDIT_POLICY);
    List<Map<Controller, Result>> rows = new ArrayList<>();
    for (int n : SIZES) {
      Map<Controller, Result> row = new EnumMap<>(Controller.class);
      for (Controller who : Controller.values()) {
        row.put(who, run(who, n, yardstick, policy));
      }
      rows.add(row);
      System.out.println();
      System.out.println(capacityTable(rows));
    }
    Map<Controller, Result> last = rows.get(rows.size() - 1);
    Result op = last.get(Controller.OPERATOR);
    Result floor = last.get(Controller.JAVA_FLOOR);
    Result go = last.get(Controller.GO);
    System.out.printf("%nat %,d deployments x %d replicas:%n", op.deployments(), REPLICAS);
    System.out.printf(
        "ratio cold start/java floor: %.2f%n",
        op.coldStart().seconds() / floor.coldStart().seconds());
    System.out.printf("ratio roll/java floor: %.2f%n", op.roll() / floor.roll());
    System.out.printf(
        "ratio cold start/go: %.2f%n", op.coldStart().seconds() / go.coldStart().seconds());
    System.out.printf("ratio roll/go: %.2f%n", op.roll() / go.roll());
    System.out.printf(
        "api requests per deployment, operator/go: %.1f/%.1f%n",
        op.requestsPerDeployment(), go.requestsPerDeployment());
    System.out.printf(
        "heap MiB at %d: %.0f (java floor %.0f)%n",
        op.deployments(), op.heapMiB().orElseThrow(), floor.heapMiB().orElseThrow());
    System.out.printf(
        "reconciles per deployment per roll: %.1f (java floor %.1f, go %.1f)%n",
        op.reconcilesPerDeploymentPerRoll(),
        floor.reconcilesPerDeploymentPerRoll(),
        go.reconcilesPerDeploymentPerRoll());
    if (SIZES.equals(List.of(250, 500, 1000, 2000))) {
      writeCapacityTable(capacityTable(rows));
    }
  }

  /**
   * Every request at Metadata level, once it completed: enough to count requests by user agent,
   * verb and resource, without their bodies.
   */
  static final String AUDIT_POLICY =
      """
      apiVersion: audit.k8s.io/v1
      kind: Policy
      omitStages: [RequestReceived, ResponseStarted]
      rules:
        - level: Metadata
      """;

  /** Builds src/bench/go with the module proxy's controller-runtime into target/bench. */
  static Path buildYardstick() throws Exception {
    Path out = WORK.resolve("kvcache-go-controller");
    ProcessBuilder build =
        new ProcessBuilder("go", "build", "-o", out.toString(), ".")
            .directory(Path.of("src", "bench", "go").toFile())
            .redirectErrorStream(true)
            .redirectOutput(WORK.resolve("go-build.log").toFile());
    build.environment().put("CGO_ENABLED", "0");
    build.environment().put("GOFLAGS", "-buildvcs=false -mod=readonly -trimpath");
    long start = System.nanoTime();
    Process p;
    try {
      p = build.start();
    } catch (IOException e) {
      throw new IllegalStateException(
          "go is missing: the benchmark builds its controller-runtime yardstick with Go 1.26", e);
    }
    assertThat(p.waitFor(20, TimeUnit.MINUTES)).isTrue();
    assertThat(p.exitValue())
        .as("go build of src/bench/go: " + Files.readString(WORK.resolve("go-build.log")))
        .isZero();
    System.out.printf(
        "built the controller-runtime yardstick in %.0f s%n", (System.nanoTime() - start) / 1e9);
    return out;
  }

  /** {@code who} on a fresh seeded cluster: cold start, the roll to the Setting off and back. */
  static Result run(Controller who, int deployments, Path yardstick, Path policy) throws Exception {
    Path dir = WORK.resolve(deployments + "-" + who.name().toLowerCase());
    Files.createDirectories(dir);
    int pods = deployments * REPLICAS;
    System.out.printf("%n-- %s, %d deployments, fresh cluster%n", who.label, deployments);
    try (ControlPlane cluster =
            ControlPlane.start(
                "kvcache-bench",
                "--config",
                STAGES.toString(),
                "--kube-audit-policy",
                policy.toString(),
                "--disable-qps-limits");
        TerminatingPods terminating = new TerminatingPods(cluster.admin());
        SharedIndexInformer<Pod> watched =
            cluster.admin().pods().inNamespace(NAMESPACE).inform(terminating, 0)) {
      KubernetesClient client = cluster.admin();
      Shell admin = cluster.shell(dir.resolve("home"));
      admin
          .kubectl("apply -k " + Path.of("..", "deploy", "crds").toAbsolutePath().normalize())
          .ok();
      Installation.crdsEstablished(admin);
      seed(client, deployments);
      int port = freePort();
      writePodTemplates(dir);
      Audit audit = new Audit(cluster.auditLog(), who.userAgent);
      CpuMark mark = CpuMark.start(cluster, 0);
      Process controller = start(who, cluster.kubeconfig(), port, dir, yardstick);
      try {
        Duration cold = until(controller, watched, pods, p -> flag(p) && Pods.ready(p));
        Phase coldStart =
            new Phase(cold, reconciles(who, port), mark.stop(controller.pid()), audit.next());
        report("start -> all Pods created and Ready", coldStart, deployments);

        Phase off = roll(cluster, controller, who, port, audit, watched, pods, false);
        report("Setting off -> fleet rolled", off, deployments);
        Phase on = roll(cluster, controller, who, port, audit, watched, pods, true);
        report("Setting on -> fleet rolled", on, deployments);

        Optional<Double> heap =
            who == Controller.GO
                ? Optional.empty()
                : Optional.of(
                    heapAfterGc(controller, port, dir.resolve("heap-histogram.txt")) / 1048576.0);
        double rss = rssBytes(controller.pid()) / 1048576.0;
        System.out.printf(
            "heap after a full GC: %s, RSS %.0f MiB%n",
            heap.map(h -> "%.1f MiB".formatted(h)).orElse("(Go)"), rss);
        return new Result(who, deployments, coldStart, off, on, heap, rss);
      } finally {
        controller.destroy();
        controller.waitFor(30, TimeUnit.SECONDS);
      }
    }
  }

  private static Phase roll(
      ControlPlane cluster,
      Process controller,
      Controller who,
      int port,
      Audit audit,
      SharedIndexInformer<Pod> watched,
      int pods,
      boolean owned)
      throws Exception {
    double before = reconciles(who, port);
    CpuMark mark = CpuMark.start(cluster, controller.pid());
    TestObjects.setting(
        cluster.admin(), Settings.KV_CACHE_DTYPE_OWNED.name(), String.valueOf(owned));
    Duration took = until(controller, watched, pods, p -> flag(p) == owned && Pods.ready(p));
    return new Phase(
        took, reconciles(who, port) - before, mark.stop(controller.pid()), audit.next());
  }

  static Process start(Controller who, Path kubeconfig, int port, Path dir, Path yardstick)
      throws IOException {
    return switch (who) {
      case OPERATOR ->
          java(
              dir.resolve("operator.log"),
              "-jar",
              Path.of("target", "kvcache.jar").toString(),
              "run",
              "--no-webhook",
              "--no-observe",
              "--kubeconfig",
              kubeconfig.toString(),
              "--health-listen",
              "127.0.0.1:" + port,
              "--identity",
              "bench");
      case JAVA_FLOOR ->
          java(
              dir.resolve("floor.log"),
              "-cp",
              System.getProperty("java.class.path"),
              FloorMain.class.getName(),
              kubeconfig.toString(),
              String.valueOf(port),
              dir.toString());
      case GO ->
          new ProcessBuilder(
                  yardstick.toString(),
                  "-kubeconfig",
                  kubeconfig.toString(),
                  "-metrics",
                  "127.0.0.1:" + port,
                  "-templates",
                  dir.toString(),
                  "-setting",
                  Settings.NAMESPACE + "/" + Settings.KV_CACHE_DTYPE_OWNED.name(),
                  "-managed-by",
                  Keys.MANAGED_BY + "=" + PodRenderer.MANAGER,
                  "-ordinal-label",
                  Keys.POD_ORDINAL,
                  "-flag",
                  DTYPE_FLAG,
                  "-user-agent",
                  who.userAgent)
              .redirectErrorStream(true)
              .redirectOutput(dir.resolve("go.log").toFile())
              .start();
    };
  }

  /** KWOK's Pod stages for the benchmark: Ready as with kwokctl's defaults, never deleted. */
  static final Path STAGES = Path.of("src", "bench", "kwok-stages.yaml").toAbsolutePath();

  /**
   * The one step of a kubelet the benchmark takes instead of KWOK (see {@link #STAGES}): a Pod that
   * is terminating is removed, grace period 0, with its UID as precondition, so a replacement of
   * the same name is never touched.
   */
  static final class TerminatingPods implements ResourceEventHandler<Pod>, AutoCloseable {
    private final KubernetesClient client;
    private final ExecutorService deletes = Executors.newFixedThreadPool(4);

    TerminatingPods(KubernetesClient client) {
      this.client = client;
    }

    @Override
    public void onAdd(Pod pod) {
      finish(pod);
    }

    @Override
    public void onUpdate(Pod before, Pod pod) {
      finish(pod);
    }

    @Override
    public void onDelete(Pod pod, boolean unknown) {}

    private void finish(Pod pod) {
      if (pod.getMetadata().getDeletionTimestamp() == null) {
        return;
      }
      String url =
          client.getMasterUrl()
              + "api/v1/namespaces/"
              + pod.getMetadata().getNamespace()
              + "/pods/"
              + pod.getMetadata().getName();
      Map<String, Object> options =
          Map.of(
              "apiVersion",
              "v1",
              "kind",
              "DeleteOptions",
              "gracePeriodSeconds",
              0,
              "preconditions",
              Map.of("uid", pod.getMetadata().getUid()));
      deletes.execute(
          () -> {
            try {
              client.raw(url, "DELETE", options);
            } catch (KubernetesClientException e) {
              // 404: gone already; 409: another Pod by that name now, not ours to remove
              if (e.getCode() != 404 && e.getCode() != 409) {
                System.err.println("could not remove terminating Pod " + url + ": " + e);
              }
            }
          });
    }

    @Override
    public void close() {
      deletes.shutdownNow();
    }
  }

  /** The namespaces, the Binding the fleet attaches to, the Setting, nodes enough, the fleet. */
  static void seed(KubernetesClient client, int deployments) {
    for (String ns : List.of(NAMESPACE, Settings.NAMESPACE)) {
      client
          .namespaces()
          .resource(new NamespaceBuilder().withNewMetadata().withName(ns).endMetadata().build())
          .serverSideApply();
    }
    // up.sh's three nodes take 110 Pods each; KWOK keeps these Ready too.
    Map<String, Quantity> room =
        Map.of(
            "cpu",
            new Quantity("10000"),
            "memory",
            new Quantity("10000Gi"),
            "pods",
            new Quantity("2500"));
    for (int i = 0; i < 4; i++) {
      client
          .nodes()
          .resource(
              new NodeBuilder()
                  .withNewMetadata()
                  .withName("kwok-bench-" + i)
                  .addToAnnotations("kwok.x-k8s.io/node", "fake")
                  .addToLabels("type", "kwok")
                  .addToLabels("kubernetes.io/hostname", "kwok-bench-" + i)
                  .endMetadata()
                  .withNewStatus()
                  .addToAllocatable(room)
                  .addToCapacity(room)
                  .endStatus()
                  .build())
          .create();
    }
    TestObjects.apply(client, BASE);
    TestObjects.apply(
        client,
        """
        apiVersion: gpustack.ai/v1
        kind: Setting
        metadata: {name: %s, namespace: %s}
        spec: {value: "true"}
        """
            .formatted(Settings.KV_CACHE_DTYPE_OWNED.name(), Settings.NAMESPACE));
    for (int i = 0; i < deployments; i++) {
      TestObjects.apply(client, deployment(i));
    }
  }

  /** Reads CPU time at the start of a phase; {@link #stop} gives what the phase used. */
  record CpuMark(
      long controller,
      long jit,
      long vm,
      long apiserver,
      long etcd,
      long apiserverPid,
      long etcdPid) {
    static CpuMark start(ControlPlane cluster, long controllerPid) {
      long apiserver = cluster.pid("kube-apiserver");
      long etcd = cluster.pid("etcd");
      return new CpuMark(
          controllerPid == 0 ? 0 : cpuNanos(controllerPid),
          controllerPid == 0 ? 0 : threadCpuNanos(controllerPid, JIT_THREADS),
          controllerPid == 0 ? 0 : threadCpuNanos(controllerPid, VM_THREADS),
          cpuNanos(apiserver),
          cpuNanos(etcd),
          apiserver,
          etcd);
    }

    Cpu stop(long controllerPid) {
      return new Cpu(
          (cpuNanos(controllerPid) - controller) / 1e9,
          (cpuNanos(apiserverPid) - apiserver) / 1e9,
          (cpuNanos(etcdPid) - etcd) / 1e9,
          (threadCpuNanos(controllerPid, JIT_THREADS) - jit) / 1e9,
          (threadCpuNanos(controllerPid, VM_THREADS) - vm) / 1e9);
    }
  }

  /** HotSpot's compiler threads, by their names as /proc shortens them. */
  static final Pattern JIT_THREADS = Pattern.compile("C[12] CompilerThre.*");

  /** HotSpot's VM thread, where Serial GC collects, and the GC workers of the other collectors. */
  static final Pattern VM_THREADS = Pattern.compile("VM Thread|GC Thread.*|G1 .*");

  /** CPU time (user + system) of process {@code pid}, from /proc (USER_HZ = 100). */
  static long cpuNanos(long pid) {
    return ticksToNanos(proc(String.valueOf(pid), "stat"));
  }

  /** CPU time of the live threads of {@code pid} whose names match {@code names}. */
  static long threadCpuNanos(long pid, Pattern names) {
    try (Stream<Path> tasks = Files.list(Path.of("/proc", String.valueOf(pid), "task"))) {
      return tasks
          .mapToLong(
              task -> {
                try {
                  String stat = Files.readString(task.resolve("stat"));
                  String name = stat.substring(stat.indexOf('(') + 1, stat.lastIndexOf(')'));
                  return names.matcher(name).matches() ? ticksToNanos(stat) : 0;
                } catch (IOException e) {
                  return 0; // the thread ended
                }
              })
          .sum();
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  private static long ticksToNanos(String stat) {
    String[] f = stat.substring(stat.lastIndexOf(')') + 2).split(" ");
    return (Long.parseLong(f[11]) + Long.parseLong(f[12])) * 10_000_000L;
  }

  /** The machine's load average over 1, 5 and 15 minutes, from /proc. */
  static String loadAverage() {
    String[] f = proc("loadavg").split(" ");
    return f[0] + " " + f[1] + " " + f[2];
  }

  /** Resident set size of process {@code pid}, from /proc. */
  static long rssBytes(long pid) {
    return proc(String.valueOf(pid), "status")
        .lines()
        .filter(l -> l.startsWith("VmRSS:"))
        .mapToLong(l -> Long.parseLong(l.replaceAll("[^0-9]", "")) * 1024)
        .findFirst()
        .orElseThrow();
  }

  /** The file under /proc at {@code path}. */
  private static String proc(String... path) {
    try {
      return Files.readString(Path.of("/proc", path));
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  /**
   * The audit log's requests by one user agent since the last call, as {@code "verb resource"}
   * counts ({@code "patch modeldeployments/status"}, a refusal's code after it: {@code "create pods
   * (409)"}); watches and the Lease left out, since they are paid per controller rather than per
   * deployment.
   */
  static final class Audit {
    private final Path log;
    private final String quoted;
    private final ObjectMapper json = new ObjectMapper();
    private final Set<Path> backups;
    private long offset;

    Audit(Path log, String userAgent) throws IOException {
      this.log = log;
      this.quoted = "\"userAgent\":\"" + userAgent;
      this.backups = new HashSet<>(backups());
      this.offset = Files.exists(log) ? Files.size(log) : 0;
    }

    /**
     * Counts the events written since the last call. kube-apiserver rotates its audit log at 100 MB
     * ({@code --audit-log-maxsize}, k8s.io/apiserver v0.36.3 pkg/server/options/audit.go:157) into
     * {@code audit-<time>.log}: the first new backup goes on from where this reader was, any later
     * one from its start.
     */
    Map<String, Long> next() throws IOException, InterruptedException {
      Thread.sleep(1000); // the last requests' events are written once they complete
      Map<String, Long> counts = new TreeMap<>();
      List<Path> rotated = backups().stream().filter(b -> !backups.contains(b)).sorted().toList();
      for (Path backup : rotated) {
        read(backup, offset, counts);
        offset = 0;
        backups.add(backup);
      }
      offset = read(log, offset, counts);
      return counts;
    }

    private List<Path> backups() throws IOException {
      try (Stream<Path> files = Files.list(log.getParent())) {
        return files.filter(f -> f.getFileName().toString().matches("audit-.+\\.log")).toList();
      }
    }

    /** Counts the complete lines of {@code file} from byte {@code from}; returns where they end. */
    private long read(Path file, long from, Map<String, Long> counts) throws IOException {
      long consumed = from;
      try (FileChannel channel = FileChannel.open(file)) {
        ByteBuffer buffer = ByteBuffer.allocate(1 << 20);
        ByteArrayOutputStream line = new ByteArrayOutputStream();
        for (long position = from; ; ) {
          buffer.clear();
          int n = channel.read(buffer, position);
          if (n <= 0) {
            return consumed; // an event still being written waits for the next phase
          }
          for (int i = 0; i < n; i++) {
            byte b = buffer.get(i);
            if (b != '\n') {
              line.write(b);
              continue;
            }
            count(line.toString(StandardCharsets.UTF_8), counts);
            line.reset();
            consumed = position + i + 1;
          }
          position += n;
        }
      }
    }

    private void count(String line, Map<String, Long> counts) throws IOException {
      if (!line.contains(quoted)) {
        return;
      }
      JsonNode event = json.readTree(line);
      String verb = event.path("verb").asText();
      String resource = event.path("objectRef").path("resource").asText();
      if (verb.equals("watch") || resource.equals("leases")) {
        return;
      }
      String sub = event.path("objectRef").path("subresource").asText();
      int code = event.path("responseStatus").path("code").asInt();
      counts.merge(
          verb
              + " "
              + resource
              + (sub.isEmpty() ? "" : "/" + sub)
              + (code >= 400 ? " (" + code + ")" : ""),
          1L,
          Long::sum);
    }
  }

  static final String TABLE_BEGIN =
      "<!-- capacity table: generated by the operator benchmark, do not edit -->";
  static final String TABLE_END = "<!-- end of capacity table -->";

  static void writeCapacityTable(String table) throws IOException {
    Path doc = Path.of("..", "docs", "operating.md");
    String text = Files.readString(doc);
    int begin = text.indexOf(TABLE_BEGIN);
    int end = text.indexOf(TABLE_END);
    assertThat(begin).as("docs/operating.md holds " + TABLE_BEGIN).isNotNegative();
    Files.writeString(
        doc, text.substring(0, begin + TABLE_BEGIN.length()) + "\n" + table + text.substring(end));
    System.out.println("wrote the Capacity table into " + doc.toAbsolutePath().normalize());
  }

  static String capacityTable(List<Map<Controller, Result>> rows) {
    StringBuilder t =
        new StringBuilder(
            "| Deployments × 4 | To Ready: operator / Java floor / Go | Roll off + on: operator"
                + " / Java floor / Go | Requests per deployment: operator / Go | Reconciles per"
                + " deployment per roll | Heap after full GC / RSS | CPU cold start: operator /"
                + " kube-apiserver / etcd | CPU roll: operator / kube-apiserver / etcd |\n"
                + "|---:|---:|---:|---:|---:|---:|---:|---:|\n");
    for (Map<Controller, Result> row : rows) {
      Result op = row.get(Controller.OPERATOR);
      Result floor = row.get(Controller.JAVA_FLOOR);
      Result go = row.get(Controller.GO);
      Cpu cold = op.coldStart().cpu();
      Cpu off = op.off().cpu();
      Cpu on = op.on().cpu();
      t.append(
          String.format(
              "| %,d | %.1f / %.1f / %.1f s | %.1f / %.1f / %.1f s | %.1f / %.1f | %.1f | %.0f /"
                  + " %.0f MiB | %.0f / %.0f / %.0f s | %.0f / %.0f / %.0f s |%n",
              op.deployments(),
              op.coldStart().seconds(),
              floor.coldStart().seconds(),
              go.coldStart().seconds(),
              op.roll(),
              floor.roll(),
              go.roll(),
              op.requestsPerDeployment(),
              go.requestsPerDeployment(),
              op.reconcilesPerDeploymentPerRoll(),
              op.heapMiB().orElseThrow(),
              op.rssMiB(),
              cold.controller(),
              cold.apiserver(),
              cold.etcd(),
              off.controller() + on.controller(),
              off.apiserver() + on.apiserver(),
              off.etcd() + on.etcd()));
    }
    return t.toString();
  }

  static void report(String phase, Phase p, int deployments) {
    System.out.printf(
        "%s: %.1f s, %.0f reconciles (%.1f per deployment), %s, load average %s%n"
            + "  requests per deployment: %s%n",
        phase,
        p.seconds(),
        p.reconciles(),
        p.reconciles() / deployments,
        p.cpu(),
        loadAverage(),
        p.requests().entrySet().stream()
            .map(e -> "%s %.2f".formatted(e.getKey(), (double) e.getValue() / deployments))
            .collect(Collectors.joining(", ")));
  }

  /** The deployment whose rendered Pods the floors copy for every other. */
  static final String TEMPLATE = "md-0000";

  static final String TEMPLATE_MODEL = "\"org/model-0\"";

  static final String DTYPE_FLAG = "--kv-cache-dtype";

  /**
   * Writes into {@code dir} the Pods the operator renders for {@link #TEMPLATE}, with the Setting
   * on ({@code pods-owned.json}) and off ({@code pods-unowned.json}): both floors create these
   * bodies, renamed, so every controller sends the API server the same Pods.
   */
  static void writePodTemplates(Path dir) throws IOException {
    ModelDeployment md = (ModelDeployment) TestObjects.objects(deployment(0)).get(0);
    List<HasMetadata> objects = new ArrayList<>(TestObjects.objects(BASE));
    objects.add(md);
    PodRenderer renderer = new PodRenderer(EngineRegistry.load());
    KubernetesSerialization json = KvCacheSerialization.create();
    for (boolean owned : List.of(true, false)) {
      MemoryClusterView cluster =
          MemoryClusterView.of(objects)
              .withSetting(Settings.KV_CACHE_DTYPE_OWNED.name(), String.valueOf(owned));
      List<Pod> pods = renderer.render(md, cluster).roles().get(0).pods();
      Files.writeString(dir.resolve(templateFile(owned)), json.asJson(pods));
    }
  }

  static String templateFile(boolean owned) {
    return owned ? "pods-owned.json" : "pods-unowned.json";
  }

  /**
   * The Java floor as a process: {@code FloorMain KUBECONFIG PORT TEMPLATES} reconciles every
   * ModelDeployment with {@link FloorReconciler} creating the Pods in {@code TEMPLATES} (see {@link
   * #writePodTemplates}) and serves {@code /metrics} on {@code PORT}.
   */
  public static final class FloorMain {
    private FloorMain() {}

    public static void main(String[] args) throws Exception {
      CommonPool.atLeastTwoThreads(); // as the operator's main does
      Config config = Config.fromKubeconfig(Files.readString(Path.of(args[0])));
      config.setUserAgent(Controller.JAVA_FLOOR.userAgent);
      KubernetesClient client =
          new KubernetesClientBuilder()
              .withConfig(config)
              .withKubernetesSerialization(KvCacheSerialization.create())
              .build();
      PrometheusMeterRegistry registry = Metrics.registry();
      Operator floor =
          new Operator(
              o ->
                  o.withKubernetesClient(client)
                      .withUseSSAToPatchPrimaryResource(false)
                      .withMetrics(MicrometerMetrics.withoutPerResourceMetrics(registry)));
      Map<Boolean, List<String>> templates = new HashMap<>();
      for (boolean owned : List.of(true, false)) {
        List<String> pods = new ArrayList<>();
        new ObjectMapper()
            .readTree(Path.of(args[2]).resolve(templateFile(owned)).toFile())
            .forEach(p -> pods.add(p.toString()));
        templates.put(owned, pods);
      }
      floor.register(new FloorReconciler(templates));
      floor.start();
      HealthServer.start(
          new InetSocketAddress("127.0.0.1", Integer.parseInt(args[1])),
          () -> true,
          () -> true,
          registry);
      Thread.currentThread().join();
    }
  }

  static Process java(Path log, String... args) throws IOException {
    List<String> command = new ArrayList<>();
    command.add(ProcessHandle.current().info().command().orElse("java"));
    // The shipped image's JVM. MarkSweepDeadRatio=0 only makes the measuring full GC compact all:
    // Serial otherwise leaves up to 5 % of the old generation as dead filler arrays
    // (at 2,000, 14 MiB of int[] counted as used).
    command.addAll(ShippedJar.IMAGE_JVM);
    command.add("-XX:MarkSweepDeadRatio=0");
    if (Boolean.getBoolean("kvcache.bench.jfr")) {
      // a CPU and allocation profile of each process, beside its log
      command.add(
          "-XX:StartFlightRecording=settings=profile,filename="
              + log.resolveSibling(log.getFileName() + ".jfr"));
    }
    command.addAll(List.of(args));
    return new ProcessBuilder(command)
        .redirectErrorStream(true)
        .redirectOutput(log.toFile())
        .start();
  }

  static int freePort() throws IOException {
    try (ServerSocket s = new ServerSocket(0)) {
      return s.getLocalPort();
    }
  }

  static String scrape(int port) {
    try {
      return HttpClient.newHttpClient()
          .send(
              HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + port + "/metrics")).build(),
              HttpResponse.BodyHandlers.ofString())
          .body();
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new IllegalStateException(e);
    }
  }

  /** Sums the samples of every series whose line starts with {@code prefix}. */
  static double sum(String scrape, String prefix) {
    return scrape
        .lines()
        .filter(l -> l.startsWith(prefix))
        .mapToDouble(l -> Double.parseDouble(l.substring(l.lastIndexOf(' ') + 1)))
        .sum();
  }

  /** Reconciles the controller serving {@code port} started (JOSDK) or finished (Go). */
  static double reconciles(Controller who, int port) {
    return who == Controller.GO
        ? sum(scrape(port), "controller_runtime_reconcile_total{")
        : sum(scrape(port), "operator_sdk_reconciliations_started_total");
  }

  /**
   * The process's used heap right after a full collection; the class histogram the collection came
   * with (its 40 largest classes) goes to {@code histogram}, the profile behind the heap figure.
   */
  static double heapAfterGc(Process process, int port, Path histogram) throws Exception {
    Path jcmd = Path.of(System.getProperty("java.home"), "bin", "jcmd");
    Process gc =
        new ProcessBuilder(jcmd.toString(), String.valueOf(process.pid()), "GC.class_histogram")
            .redirectErrorStream(true)
            .start();
    List<String> lines = new String(gc.getInputStream().readAllBytes()).lines().toList();
    assertThat(gc.waitFor(60, TimeUnit.SECONDS)).isTrue();
    // the 40 largest classes and the total
    List<String> kept = new ArrayList<>(lines.subList(0, Math.min(lines.size(), 43)));
    lines.stream().filter(l -> l.startsWith("Total")).forEach(kept::add);
    Files.write(histogram, kept);
    return sum(scrape(port), "jvm_memory_used_bytes{area=\"heap\"");
  }

  /**
   * The same work without the rules: creates a deployment's 4 Pods in one pass (the operator's own
   * Pod bodies for the Setting's value, copied from a template rather than rendered), replaces
   * those whose dtype flag no longer matches the Setting one at a time while the rest are Ready
   * (delete, then create on the delete event, as the operator does), and writes one status field.
   * The Go yardstick (src/bench/go) does the same on controller-runtime.
   */
  @ControllerConfiguration(name = "floor")
  static final class FloorReconciler implements Reconciler<ModelDeployment> {
    static final String SETTINGS = "settings";

    private final Map<Boolean, List<String>> templates;
    private final KubernetesSerialization json = KvCacheSerialization.create();

    FloorReconciler(Map<Boolean, List<String>> templates) {
      this.templates = templates;
    }

    @Override
    public List<EventSource<?, ModelDeployment>> prepareEventSources(
        EventSourceContext<ModelDeployment> context) {
      return List.of(
          new InformerEventSource<>(
              InformerEventSourceConfiguration.from(Pod.class, ModelDeployment.class)
                  .withLabelSelector(Keys.MANAGED_BY + "=" + PodRenderer.MANAGER)
                  .build(),
              context),
          new InformerEventSource<>(
              InformerEventSourceConfiguration.from(Setting.class, ModelDeployment.class)
                  .withName(SETTINGS)
                  .withNamespaces(Set.of(Settings.NAMESPACE))
                  .withSecondaryToPrimaryMapper(
                      s ->
                          context
                              .getPrimaryCache()
                              .list()
                              .map(ResourceID::fromResource)
                              .collect(Collectors.toSet()))
                  .build(),
              context));
    }

    @Override
    public UpdateControl<ModelDeployment> reconcile(
        ModelDeployment md, Context<ModelDeployment> context) {
      boolean owned =
          ((InformerEventSource<Setting, ModelDeployment>)
                  context.eventSourceRetriever().getEventSourceFor(Setting.class, SETTINGS))
              .list()
              .filter(s -> s.getMetadata().getName().equals(Settings.KV_CACHE_DTYPE_OWNED.name()))
              .findFirst()
              .flatMap(s -> s.getSpec().value())
              .map(v -> !v.equals("false"))
              .orElse(true);
      Map<Integer, Pod> pods = new TreeMap<>();
      context.getSecondaryResources(Pod.class).forEach(p -> pods.put(Pods.ordinal(p), p));
      KubernetesClient client = context.getClient();
      for (int ordinal = 0; ordinal < REPLICAS; ordinal++) {
        if (!pods.containsKey(ordinal)) {
          try {
            client.pods().resource(pod(md, ordinal, owned)).create();
          } catch (KubernetesClientException e) {
            if (e.getCode() != 409) { // a cache behind its own create, as the operator tolerates
              throw e;
            }
          }
        }
      }
      List<Pod> stale = pods.values().stream().filter(p -> flag(p) != owned).toList();
      boolean allReady = pods.size() == REPLICAS && pods.values().stream().allMatch(Pods::ready);
      if (!stale.isEmpty()
          && allReady
          && stale.stream().noneMatch(p -> p.getMetadata().getDeletionTimestamp() != null)) {
        client.pods().resource(stale.get(stale.size() - 1)).delete();
      }
      String phase = allReady && stale.isEmpty() ? "Ready" : "Progressing";
      if (md.getStatus() != null && md.getStatus().phase().equals(Optional.of(phase))) {
        return UpdateControl.noUpdate();
      }
      md.setStatus(ModelDeploymentStatus.builder().phase(phase).build());
      return UpdateControl.patchStatus(md);
    }

    private Pod pod(ModelDeployment md, int ordinal, boolean owned) {
      Pod pod =
          json.unmarshal(
              templates
                  .get(owned)
                  .get(ordinal)
                  .replace(TEMPLATE, md.getMetadata().getName())
                  .replace(TEMPLATE_MODEL, "\"" + md.getSpec().model().name() + "\""),
              Pod.class);
      pod.getMetadata().getOwnerReferences().get(0).setUid(md.getMetadata().getUid());
      return pod;
    }
  }

  static boolean flag(Pod pod) {
    return pod.getSpec().getContainers().get(0).getCommand().contains(DTYPE_FLAG);
  }

  /**
   * How long until {@code count} Pods are there and each passes {@code each}; prints when half, 90
   * % and 99 % of them did, so a long tail (a deployment waiting on a timer) shows.
   */
  static Duration until(
      Process controller, SharedIndexInformer<Pod> pods, int count, Predicate<Pod> each)
      throws InterruptedException {
    long start = System.nanoTime();
    double[] shares = {0.5, 0.9, 0.99};
    StringBuilder progress = new StringBuilder("  progress:");
    int next = 0;
    while (true) {
      List<Pod> now = pods.getStore().list();
      long passing = now.stream().filter(each).count();
      double seconds = (System.nanoTime() - start) / 1e9;
      for (; next < shares.length && passing >= shares[next] * count; next++) {
        progress.append(String.format(" %.0f%% %.1f s,", shares[next] * 100, seconds));
      }
      if (now.size() == count && passing == count) {
        System.out.println(progress.append(String.format(" all %.1f s", seconds)));
        return Duration.ofNanos(System.nanoTime() - start);
      }
      if (!controller.isAlive()) {
        throw new AssertionError("the controller exited; see its log under " + WORK);
      }
      if (seconds > PATIENCE.toSeconds()) {
        throw new AssertionError(
            "after " + PATIENCE + ", " + passing + " of " + count + " Pods; " + progress);
      }
      Thread.sleep(100);
    }
  }
}
