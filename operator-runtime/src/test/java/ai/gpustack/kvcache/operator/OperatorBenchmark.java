package ai.gpustack.kvcache.operator;

import static org.assertj.core.api.Assertions.assertThat;

import ai.gpustack.kvcache.api.ModelDeploymentStatus;
import ai.gpustack.kvcache.api.Settings;
import ai.gpustack.kvcache.resources.Keys;
import ai.gpustack.kvcache.resources.KvCacheSerialization;
import ai.gpustack.kvcache.resources.ModelDeployment;
import ai.gpustack.kvcache.resources.Pods;
import ai.gpustack.kvcache.sandbox.Kubelet;
import ai.gpustack.kvcache.sandbox.SandboxServer;
import ai.gpustack.kvcache.spi.EngineRegistry;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.client.Config;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.KubernetesClientBuilder;
import io.fabric8.kubernetes.client.informers.SharedIndexInformer;
import io.javaoperatorsdk.operator.Operator;
import io.javaoperatorsdk.operator.api.reconciler.Context;
import io.javaoperatorsdk.operator.api.reconciler.ControllerConfiguration;
import io.javaoperatorsdk.operator.api.reconciler.Reconciler;
import io.javaoperatorsdk.operator.api.reconciler.UpdateControl;
import io.javaoperatorsdk.operator.monitoring.micrometer.MicrometerMetrics;
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
import java.util.List;
import java.util.Optional;
import java.util.concurrent.TimeUnit;
import java.util.function.Predicate;
import org.junit.jupiter.api.Test;

/**
 * The reference operator at fleet scale on the sandbox's API server: {@code
 * kvcache.bench.deployments} (500) pool-attached vLLM deployments of 4 replicas. Measures the time
 * from start to every Pod rendered, the time for the whole fleet to roll after a Setting flip (off,
 * then on again), reconciles per second and the operator's retained heap after a full GC, beside a
 * floor controller that only lists each deployment's Pods and patches its status. Numbers are
 * printed, not asserted. Run with {@code ./mvnw -B -Pbench verify -pl operator-runtime -am}.
 */
class OperatorBenchmark {
  static final int DEPLOYMENTS = Integer.getInteger("kvcache.bench.deployments", 500);
  static final int REPLICAS = 4;
  static final Duration PATIENCE = Duration.ofMinutes(20);

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

  @Test
  void fleet() throws Exception {
    int pods = DEPLOYMENTS * REPLICAS;
    System.out.printf(
        "fleet: %d deployments x %d replicas = %d Pods%n", DEPLOYMENTS, REPLICAS, pods);
    Path dir = Files.createTempDirectory("bench");
    // The operator as it ships (reading every Ready replica's report), then without observation,
    // each on a fresh cluster: the difference is what observing costs.
    operatorRun("observing", List.of(), dir.resolve("observing"), pods, false);
    operatorRun("--no-observe", List.of("--no-observe"), dir.resolve("no-observe"), pods, true);
  }

  /**
   * {@code kvcache run} with {@code extra} args on a fresh seeded cluster, its three phases; then,
   * when {@code thenFloor}, the floor on the cluster state it left.
   */
  @SuppressWarnings("try") // the kubelet only has to run meanwhile
  private static void operatorRun(
      String label, List<String> extra, Path dir, int pods, boolean thenFloor) throws Exception {
    Files.createDirectories(dir);
    System.out.printf("%n-- kvcache run, %s%n", label);
    try (SandboxServer server = SandboxServer.start(EngineRegistry.load(), 0);
        Kubelet kubelet = new Kubelet(server.client(), Duration.ofMillis(20))) {
      KubernetesClient client = server.client();
      seed(client);
      SharedIndexInformer<Pod> watched = client.pods().inNamespace("bench").inform();
      Path kubeconfig = dir.resolve("kubeconfig");
      Files.writeString(kubeconfig, server.kubeconfig());
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
      try {
        Duration render = until(watched, all(pods, p -> flag(p) && Pods.ready(p)));
        double reconciles = reconciles(port);
        report("start -> all Pods rendered and Ready", render, reconciles);

        TestObjects.setting(client, Settings.KV_CACHE_DTYPE_OWNED.name(), "false");
        Duration off = until(watched, all(pods, p -> !flag(p) && Pods.ready(p)));
        report("Setting off -> fleet rolled", off, reconciles(port) - reconciles);
        reconciles = reconciles(port);

        TestObjects.setting(client, Settings.KV_CACHE_DTYPE_OWNED.name(), "true");
        Duration on = until(watched, all(pods, p -> flag(p) && Pods.ready(p)));
        report("Setting on -> fleet rolled", on, reconciles(port) - reconciles);
        System.out.printf(
            "operator heap after a full GC: %.1f MiB (kvcache run, its own JVM)%n",
            heapAfterGc(operator, port) / 1048576.0);
        System.out.printf("total %.1f s%n", (System.nanoTime() - started) / 1e9);
      } finally {
        operator.destroy();
        operator.waitFor(30, TimeUnit.SECONDS);
      }
      watched.close();
      if (thenFloor) {
        floor(client, kubeconfig, dir);
      }
    }
  }

  /** The floor on the cluster state the operator left, in a JVM of its own. */
  private static void floor(KubernetesClient client, Path kubeconfig, Path dir) throws Exception {
    int floorPort = freePort();
    long floorStart = System.nanoTime();
    Process floor =
        java(
            dir.resolve("floor.log"),
            "-cp",
            System.getProperty("java.class.path"),
            FloorMain.class.getName(),
            kubeconfig.toString(),
            String.valueOf(floorPort));
    try {
      SharedIndexInformer<ModelDeployment> deployments =
          client.resources(ModelDeployment.class).inNamespace("bench").inform();
      TestObjects.await(
          "every status patched",
          PATIENCE,
          () ->
              deployments.getStore().list().stream()
                      .filter(md -> md.getStatus() != null)
                      .filter(
                          md -> md.getStatus().phase().equals(Optional.of(FloorReconciler.PHASE)))
                      .count()
                  == DEPLOYMENTS);
      report(
          "floor: start -> every status patched",
          Duration.ofNanos(System.nanoTime() - floorStart),
          reconciles(floorPort));
      System.out.printf(
          "floor heap after a full GC: %.1f MiB%n", heapAfterGc(floor, floorPort) / 1048576.0);
      deployments.close();
    } finally {
      floor.destroy();
      floor.waitFor(30, TimeUnit.SECONDS);
    }
  }

  /**
   * The floor controller as a process: {@code FloorMain KUBECONFIG PORT} reconciles every
   * ModelDeployment with {@link FloorReconciler} and serves {@code /metrics} on {@code PORT}.
   */
  public static final class FloorMain {
    private FloorMain() {}

    public static void main(String[] args) throws Exception {
      KubernetesClient client =
          new KubernetesClientBuilder()
              .withConfig(Config.fromKubeconfig(Files.readString(Path.of(args[0]))))
              .withKubernetesSerialization(KvCacheSerialization.create())
              .build();
      PrometheusMeterRegistry registry = Metrics.registry();
      Operator floor =
          new Operator(
              o ->
                  o.withKubernetesClient(client)
                      .withUseSSAToPatchPrimaryResource(false)
                      .withMetrics(MicrometerMetrics.withoutPerResourceMetrics(registry)));
      floor.register(new FloorReconciler());
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

  /** Lists the deployment's Pods and patches its status: what every controller pays at least. */
  @ControllerConfiguration(name = "floor")
  static final class FloorReconciler implements Reconciler<ModelDeployment> {
    static final String PHASE = "Floor";

    @Override
    public UpdateControl<ModelDeployment> reconcile(
        ModelDeployment md, Context<ModelDeployment> context) {
      int running =
          context
              .getClient()
              .pods()
              .inNamespace(md.getMetadata().getNamespace())
              .withLabel(Keys.INSTANCE, md.getMetadata().getName())
              .list()
              .getItems()
              .size();
      md.setStatus(
          ModelDeploymentStatus.builder()
              .observedGeneration(md.getMetadata().getGeneration())
              .phase(running == 0 ? "Pending" : PHASE)
              .build());
      return UpdateControl.patchStatus(md);
    }
  }

  static void seed(KubernetesClient client) {
    TestObjects.apply(client, BASE);
    for (int i = 0; i < DEPLOYMENTS; i++) {
      TestObjects.apply(client, deployment(i));
    }
  }

  static Predicate<List<Pod>> all(int count, Predicate<Pod> each) {
    return list -> list.size() == count && list.stream().allMatch(each);
  }

  static boolean flag(Pod pod) {
    return pod.getSpec().getContainers().get(0).getCommand().contains("--kv-cache-dtype");
  }

  static Duration until(SharedIndexInformer<Pod> pods, Predicate<List<Pod>> done) {
    long start = System.nanoTime();
    TestObjects.await("the Pods", PATIENCE, () -> done.test(pods.getStore().list()));
    return Duration.ofNanos(System.nanoTime() - start);
  }

  static void report(String phase, Duration took, double reconciles) {
    double seconds = took.toNanos() / 1e9;
    System.out.printf(
        "%s: %.1f s, %.0f reconciles, %.0f reconciles/s%n",
        phase, seconds, reconciles, reconciles / seconds);
  }
}
