package ai.gpustack.kvcache.operator;

import static org.assertj.core.api.Assertions.assertThat;

import ai.gpustack.kvcache.api.ModelDeploymentStatus;
import ai.gpustack.kvcache.api.Settings;
import ai.gpustack.kvcache.cluster.MemoryClusterView;
import ai.gpustack.kvcache.operator.render.PodRenderer;
import ai.gpustack.kvcache.resources.Keys;
import ai.gpustack.kvcache.resources.KvCacheSerialization;
import ai.gpustack.kvcache.resources.ModelDeployment;
import ai.gpustack.kvcache.resources.Pods;
import ai.gpustack.kvcache.resources.Setting;
import ai.gpustack.kvcache.sandbox.Kubelet;
import ai.gpustack.kvcache.sandbox.SandboxServer;
import ai.gpustack.kvcache.spi.EngineRegistry;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.fabric8.kubernetes.api.model.HasMetadata;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.client.Config;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.KubernetesClientBuilder;
import io.fabric8.kubernetes.client.KubernetesClientException;
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
import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.TreeMap;
import java.util.concurrent.TimeUnit;
import java.util.function.Predicate;
import java.util.stream.Collectors;
import org.junit.jupiter.api.Test;

/**
 * The reference operator at fleet scale on the sandbox's API server: {@code
 * kvcache.bench.deployments} (500) pool-attached vLLM deployments of 4 replicas, each run on a
 * fresh cluster. Measures the cold start (start to every Pod rendered and Ready), the roll after a
 * Setting flip (every Pod replaced, one per deployment at a time) and back, reconciles per
 * deployment per roll, the retained heap after a full GC, and the CPU time of the operator's
 * process beside that of the cluster (the sandbox API server and kubelet, in this JVM); for the
 * operator as it ships (observing every Ready replica's engine), without observation, and for a
 * same-work floor: a minimal Java Operator SDK controller that creates the same Pods (the
 * operator's own rendering, copied), replaces them the same way on the same trigger and writes one
 * status field, with none of the rules. Prints the operator/floor ratios ({@code
 * -Dkvcache.bench.observing=false} skips the observing run). With {@code
 * -Dkvcache.bench.series=250,500,1000,2000} it runs the operator (without observation) and the
 * floor at each size instead, prints the cost curve and writes it into docs/operating.md's Capacity
 * table. The cluster runs in this JVM for every controller, so whichever ran first paid for its JIT
 * warm-up (at 500 deployments the operator's cold start cost the cluster 32 to 41 s of CPU when it
 * ran first, 19 to 24 s after a warm-up): a discarded warm-up of both at {@link
 * #WARM_UP_DEPLOYMENTS} runs first. Numbers are printed, not asserted. Run with {@code ./mvnw -B
 * -Pbench verify -pl operator-runtime -am}.
 */
class OperatorBenchmark {
  static final int DEFAULT_DEPLOYMENTS = Integer.getInteger("kvcache.bench.deployments", 500);
  static final int REPLICAS = 4;
  static final Duration PATIENCE = Duration.ofMinutes(20);
  static final int WARM_UP_DEPLOYMENTS = 100;

  static final String BASE = TestObjects.store("bench", "fleet");

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

  /** What one controller took on one fresh cluster. */
  record Result(
      int deployments,
      Duration coldStart,
      Duration roll,
      double reconcilesPerDeploymentPerRoll,
      double heapMiB,
      Cpu coldStartCpu,
      Cpu rollCpu) {
    void print(String who) {
      System.out.printf(
          "%s cold start: %.1f s%n%s roll: %.1f s%n%s reconciles per deployment per roll: %.1f%n",
          who,
          coldStart.toNanos() / 1e9,
          who,
          roll.toNanos() / 1e9,
          who,
          reconcilesPerDeploymentPerRoll);
    }
  }

  /** CPU seconds over one phase: the controller's process, and the cluster (this JVM). */
  record Cpu(double controller, double cluster) {
    @Override
    public String toString() {
      return String.format("CPU controller %.1f s, cluster %.1f s", controller, cluster);
    }
  }

  /** Reads CPU time at the start of a phase; {@link #stop} gives what the phase used. */
  record CpuMark(long controller, long cluster, long pid) {
    static CpuMark start(Process controller) {
      return new CpuMark(cpuNanos(controller.pid()), clusterCpuNanos(), controller.pid());
    }

    Cpu stop() {
      return new Cpu((cpuNanos(pid) - controller) / 1e9, (clusterCpuNanos() - cluster) / 1e9);
    }
  }

  /** CPU time (user + system) of process {@code pid}, from /proc (USER_HZ = 100). */
  static long cpuNanos(long pid) {
    try {
      String stat = Files.readString(Path.of("/proc", String.valueOf(pid), "stat"));
      String[] f = stat.substring(stat.lastIndexOf(')') + 2).split(" ");
      return (Long.parseLong(f[11]) + Long.parseLong(f[12])) * 10_000_000L;
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  static long clusterCpuNanos() {
    return ((com.sun.management.OperatingSystemMXBean)
            java.lang.management.ManagementFactory.getOperatingSystemMXBean())
        .getProcessCpuTime();
  }

  @Test
  void series() throws Exception {
    String sizes = System.getProperty("kvcache.bench.series", "");
    org.junit.jupiter.api.Assumptions.assumeFalse(
        sizes.isBlank(), "no -Dkvcache.bench.series=250,500,1000,2000");
    Path dir = Files.createTempDirectory("bench-series");
    warmUp(dir);
    List<Result[]> rows = new ArrayList<>();
    for (String size : sizes.split(",")) {
      int n = Integer.parseInt(size.strip());
      Result operator =
          operatorRun("--no-observe", List.of("--no-observe"), dir.resolve(n + "-op"), n, false);
      Result floor = floorRun(dir.resolve(n + "-floor"), n);
      rows.add(new Result[] {operator, floor});
      System.out.println();
      System.out.println(capacityTable(rows));
    }
    Path doc = Path.of("..", "docs", "operating.md");
    String text = Files.readString(doc);
    int begin = text.indexOf(TABLE_BEGIN);
    int end = text.indexOf(TABLE_END);
    assertThat(begin).as("docs/operating.md holds " + TABLE_BEGIN).isNotNegative();
    Files.writeString(
        doc,
        text.substring(0, begin + TABLE_BEGIN.length())
            + "\n"
            + capacityTable(rows)
            + text.substring(end));
    System.out.println("wrote the Capacity table into " + doc.toAbsolutePath().normalize());
  }

  static final String TABLE_BEGIN =
      "<!-- capacity table: generated by the operator benchmark's series, do not edit -->";
  static final String TABLE_END = "<!-- end of capacity table -->";

  static String capacityTable(List<Result[]> rows) {
    StringBuilder t =
        new StringBuilder(
            "| Deployments × 4 | Pods | To Ready (floor) | Roll (floor) | Reconciles per"
                + " deployment per roll | Heap after full GC | CPU operator / cluster, cold"
                + " start | CPU operator / cluster, roll |\n"
                + "|---:|---:|---:|---:|---:|---:|---:|---:|\n");
    for (Result[] r : rows) {
      Result op = r[0];
      Result floor = r[1];
      t.append(
          String.format(
              "| %,d | %,d | %.1f s (%.1f s) | %.1f s (%.1f s) | %.1f | %.0f MiB | %.0f s / %.0f s"
                  + " | %.0f s / %.0f s |%n",
              op.deployments(),
              op.deployments() * REPLICAS,
              op.coldStart().toNanos() / 1e9,
              floor.coldStart().toNanos() / 1e9,
              op.roll().toNanos() / 1e9,
              floor.roll().toNanos() / 1e9,
              op.reconcilesPerDeploymentPerRoll(),
              op.heapMiB(),
              op.coldStartCpu().controller(),
              op.coldStartCpu().cluster(),
              op.rollCpu().controller(),
              op.rollCpu().cluster()));
    }
    return t.toString();
  }

  @Test
  void fleet() throws Exception {
    org.junit.jupiter.api.Assumptions.assumeTrue(
        System.getProperty("kvcache.bench.series", "").isBlank(), "the series runs instead");
    int deployments = DEFAULT_DEPLOYMENTS;
    int pods = deployments * REPLICAS;
    System.out.printf(
        "fleet: %d deployments x %d replicas = %d Pods%n", deployments, REPLICAS, pods);
    Path dir = Files.createTempDirectory("bench");
    warmUp(dir);
    // The operator as it ships (reading every Ready replica's report), then without observation,
    // then the floor, each on a fresh cluster.
    Optional<Result> observing =
        Boolean.parseBoolean(System.getProperty("kvcache.bench.observing", "true"))
            ? Optional.of(
                operatorRun("observing", List.of(), dir.resolve("observing"), deployments, true))
            : Optional.empty();
    Result plain =
        operatorRun(
            "--no-observe", List.of("--no-observe"), dir.resolve("no-observe"), deployments, true);
    Result floor = floorRun(dir.resolve("floor"), deployments);
    System.out.println();
    observing.ifPresent(o -> o.print("operator (observing)"));
    plain.print("operator (--no-observe)");
    floor.print("floor");
    System.out.printf(
        "ratio cold start: %.2f%s%nratio roll: %.2f%s%n",
        ratio(plain.coldStart(), floor.coldStart()),
        observing
            .map(o -> " (observing %.2f)".formatted(ratio(o.coldStart(), floor.coldStart())))
            .orElse(""),
        ratio(plain.roll(), floor.roll()),
        observing
            .map(o -> " (observing %.2f)".formatted(ratio(o.roll(), floor.roll())))
            .orElse(""));
  }

  /** Both controllers on a small fleet, results discarded: the cluster's JIT warms for either. */
  private static void warmUp(Path dir) throws Exception {
    System.out.printf("%n== warm-up, discarded ==%n");
    operatorRun(
        "warm-up", List.of("--no-observe"), dir.resolve("warm-up-op"), WARM_UP_DEPLOYMENTS, false);
    floorRun(dir.resolve("warm-up-floor"), WARM_UP_DEPLOYMENTS);
    System.out.printf("%n== measured ==%n");
  }

  private static double ratio(Duration a, Duration b) {
    return (double) a.toNanos() / b.toNanos();
  }

  /**
   * {@code kvcache run} with {@code extra} args on a fresh cluster seeded with {@code deployments}:
   * cold start, the roll to the Setting off, and ({@code rollBack}) back.
   */
  @SuppressWarnings("try") // the kubelet only has to run meanwhile
  private static Result operatorRun(
      String label, List<String> extra, Path dir, int deployments, boolean rollBack)
      throws Exception {
    Files.createDirectories(dir);
    int pods = deployments * REPLICAS;
    System.out.printf("%n-- kvcache run, %s, %d deployments%n", label, deployments);
    try (SandboxServer server = SandboxServer.start(EngineRegistry.load(), 0);
        Kubelet kubelet = new Kubelet(server.client(), Duration.ofMillis(20))) {
      KubernetesClient client = server.client();
      seed(client, deployments);
      SharedIndexInformer<Pod> watched = client.pods().inNamespace("bench").inform();
      Path kubeconfig = dir.resolve("kubeconfig");
      Files.writeString(kubeconfig, server.kubeconfig());
      List<String> audit = server.audit();
      // The operator runs as it ships, in a JVM of its own, so its heap is its own.
      int port = freePort();
      long started = System.nanoTime();
      List<String> args =
          new java.util.ArrayList<>(
              List.of(
                  "-jar",
                  Path.of("target", "kvcache.jar").toString(),
                  "run",
                  "--no-webhook",
                  "--kubeconfig",
                  kubeconfig.toString(),
                  "--health-listen",
                  "127.0.0.1:" + port,
                  "--identity",
                  "bench"));
      args.addAll(extra);
      Process operator = java(dir.resolve("operator.log"), args.toArray(String[]::new));
      CpuMark mark = CpuMark.start(operator);
      Result result;
      try {
        Duration render = until(watched, pods, p -> flag(p) && Pods.ready(p));
        Cpu renderCpu = mark.stop();
        double reconciles = reconciles(port);
        report("start -> all Pods rendered and Ready", render, reconciles, renderCpu);
        requests("kvcache-operator/bench", audit, deployments);
        audit.clear();

        mark = CpuMark.start(operator);
        TestObjects.setting(client, Settings.KV_CACHE_DTYPE_OWNED.name(), "false");
        Duration off = until(watched, pods, p -> !flag(p) && Pods.ready(p));
        Cpu offCpu = mark.stop();
        double rolled = reconciles(port) - reconciles;
        report("Setting off -> fleet rolled", off, rolled, offCpu);
        requests("kvcache-operator/bench", audit, deployments);
        reconciles = reconciles(port);

        if (rollBack) {
          mark = CpuMark.start(operator);
          TestObjects.setting(client, Settings.KV_CACHE_DTYPE_OWNED.name(), "true");
          Duration on = until(watched, pods, p -> flag(p) && Pods.ready(p));
          report("Setting on -> fleet rolled", on, reconciles(port) - reconciles, mark.stop());
        }
        double heap = heapAfterGc(operator, port) / 1048576.0;
        System.out.printf(
            "operator heap after a full GC: %.1f MiB (kvcache run, its own JVM)%n", heap);
        System.out.printf("total %.1f s%n", (System.nanoTime() - started) / 1e9);
        result =
            new Result(deployments, render, off, rolled / deployments, heap, renderCpu, offCpu);
      } finally {
        operator.destroy();
        operator.waitFor(30, TimeUnit.SECONDS);
      }
      watched.close();
      return result;
    }
  }

  /** The same-work floor on a fresh seeded cluster, in a JVM of its own: cold start and roll. */
  @SuppressWarnings("try") // the kubelet only has to run meanwhile
  private static Result floorRun(Path dir, int deployments) throws Exception {
    Files.createDirectories(dir);
    int pods = deployments * REPLICAS;
    System.out.printf("%n-- same-work floor, %d deployments%n", deployments);
    try (SandboxServer server = SandboxServer.start(EngineRegistry.load(), 0);
        Kubelet kubelet = new Kubelet(server.client(), Duration.ofMillis(20))) {
      KubernetesClient client = server.client();
      seed(client, deployments);
      // the operator writes its Settings at start; the floor reads the one it rolls on
      TestObjects.apply(
          client,
          """
          apiVersion: gpustack.ai/v1
          kind: Setting
          metadata: {name: %s, namespace: gpustack-system}
          spec: {value: "true"}
          """
              .formatted(Settings.KV_CACHE_DTYPE_OWNED.name()));
      SharedIndexInformer<Pod> watched = client.pods().inNamespace("bench").inform();
      Path kubeconfig = dir.resolve("kubeconfig");
      Files.writeString(kubeconfig, server.kubeconfig());
      List<String> audit = server.audit();
      int port = freePort();
      writePodTemplates(dir);
      Process floor =
          java(
              dir.resolve("floor.log"),
              "-cp",
              System.getProperty("java.class.path"),
              FloorMain.class.getName(),
              kubeconfig.toString(),
              String.valueOf(port),
              dir.toString());
      CpuMark mark = CpuMark.start(floor);
      try {
        Duration start = until(watched, pods, p -> flag(p) && Pods.ready(p));
        Cpu startCpu = mark.stop();
        double reconciles = reconciles(port);
        report("floor: start -> all Pods created and Ready", start, reconciles, startCpu);
        requests("floor", audit, deployments);
        audit.clear();
        mark = CpuMark.start(floor);
        TestObjects.setting(client, Settings.KV_CACHE_DTYPE_OWNED.name(), "false");
        Duration off = until(watched, pods, p -> !flag(p) && Pods.ready(p));
        Cpu offCpu = mark.stop();
        double rolled = reconciles(port) - reconciles;
        report("floor: Setting off -> fleet rolled", off, rolled, offCpu);
        requests("floor", audit, deployments);
        double heap = heapAfterGc(floor, port) / 1048576.0;
        System.out.printf("floor heap after a full GC: %.1f MiB%n", heap);
        watched.close();
        return new Result(deployments, start, off, rolled / deployments, heap, startCpu, offCpu);
      } finally {
        floor.destroy();
        floor.waitFor(30, TimeUnit.SECONDS);
      }
    }
  }

  /** The deployment whose rendered Pods the floor copies for every other. */
  static final String TEMPLATE = "md-0000";

  static final String TEMPLATE_MODEL = "\"org/model-0\"";

  /**
   * Writes into {@code dir} the Pods the operator renders for {@link #TEMPLATE}, with the Setting
   * on ({@code pods-owned.json}) and off ({@code pods-unowned.json}): the floor creates these
   * bodies, renamed, so both controllers send the API server the same Pods.
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
   * The floor controller as a process: {@code FloorMain KUBECONFIG PORT TEMPLATES} reconciles every
   * ModelDeployment with {@link FloorReconciler} creating the Pods in {@code TEMPLATES} (see {@link
   * #writePodTemplates}) and serves {@code /metrics} on {@code PORT}.
   */
  public static final class FloorMain {
    private FloorMain() {}

    public static void main(String[] args) throws Exception {
      Config config = Config.fromKubeconfig(Files.readString(Path.of(args[0])));
      config.setUserAgent("floor");
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
    command.add("-Xmx2g");
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

  /** Reconciliations JOSDK started in the process serving {@code port}, over every controller. */
  static double reconciles(int port) {
    return sum(scrape(port), "operator_sdk_reconciliations_started_total");
  }

  /** The process's used heap right after a full collection it was told to run. */
  static double heapAfterGc(Process process, int port) throws Exception {
    Path jcmd = Path.of(System.getProperty("java.home"), "bin", "jcmd");
    Process gc =
        new ProcessBuilder(jcmd.toString(), String.valueOf(process.pid()), "GC.run")
            .redirectErrorStream(true)
            .start();
    gc.getInputStream().readAllBytes();
    assertThat(gc.waitFor(60, TimeUnit.SECONDS)).isTrue();
    return sum(scrape(port), "jvm_memory_used_bytes{area=\"heap\"");
  }

  /**
   * The same work without the rules: creates a deployment's 4 Pods in one pass (the operator's own
   * Pod bodies for the Setting's value, copied from a template rather than rendered), replaces
   * those whose dtype flag no longer matches the Setting one at a time while the rest are Ready
   * (delete, then create on the delete event, as the operator does), and writes one status field.
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
                  .withWatchAllNamespaces()
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

  static void seed(KubernetesClient client, int deployments) {
    TestObjects.apply(client, BASE);
    for (int i = 0; i < deployments; i++) {
      TestObjects.apply(client, deployment(i));
    }
  }

  static boolean flag(Pod pod) {
    return pod.getSpec().getContainers().get(0).getCommand().contains("--kv-cache-dtype");
  }

  /**
   * How long until {@code count} Pods are there and each passes {@code each}; prints when half, 90
   * % and 99 % of them did, so a long tail (a deployment waiting on a timer) shows.
   */
  static Duration until(SharedIndexInformer<Pod> pods, int count, Predicate<Pod> each)
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
      if (seconds > PATIENCE.toSeconds()) {
        throw new AssertionError(
            "after " + PATIENCE + ", " + passing + " of " + count + " Pods; " + progress);
      }
      Thread.sleep(100);
    }
  }

  /**
   * The API requests {@code agent} made, per deployment, by verb and resource (watches and the
   * lease left out): what the controller cost the API server.
   */
  static void requests(String agent, List<String> audit, int deployments) {
    Map<String, Long> byShape =
        List.copyOf(audit).stream()
            .filter(r -> r.endsWith(" " + agent))
            .filter(r -> !r.contains("watch=") && !r.contains("/leases"))
            .map(OperatorBenchmark::shape)
            .collect(Collectors.groupingBy(s -> s, TreeMap::new, Collectors.counting()));
    System.out.println(
        "  requests per deployment: "
            + byShape.entrySet().stream()
                .map(e -> "%s %.1f".formatted(e.getKey(), (double) e.getValue() / deployments))
                .collect(Collectors.joining(", ")));
  }

  /** {@code "PATCH /apis/g/v1/namespaces/ns/kind/name/status ua"} as {@code PATCH kind/status}. */
  static String shape(String request) {
    String method = request.substring(0, request.indexOf(' '));
    String path = request.substring(method.length() + 1, request.indexOf(' ', method.length() + 1));
    path = path.contains("?") ? path.substring(0, path.indexOf('?')) : path;
    String[] parts = path.split("/");
    int ns = List.of(parts).indexOf("namespaces");
    int kind = ns >= 0 && parts.length > ns + 2 ? ns + 2 : parts.length - 1;
    String shape = parts[kind];
    if (parts.length > kind + 2) {
      shape += "/" + parts[kind + 2];
    } else if (parts.length == kind + 1 && !method.equals("POST")) {
      shape += " (list)";
    }
    return method + " " + shape;
  }

  static void report(String phase, Duration took, double reconciles, Cpu cpu) {
    double seconds = took.toNanos() / 1e9;
    System.out.printf(
        "%s: %.1f s, %.0f reconciles, %.0f reconciles/s, %s%n",
        phase, seconds, reconciles, reconciles / seconds, cpu);
  }
}
