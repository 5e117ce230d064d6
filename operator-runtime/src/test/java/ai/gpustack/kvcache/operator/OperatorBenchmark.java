package ai.gpustack.kvcache.operator;

import static org.assertj.core.api.Assertions.assertThat;

import ai.gpustack.kvcache.api.ModelDeploymentStatus;
import ai.gpustack.kvcache.api.SettingSpec;
import ai.gpustack.kvcache.api.Settings;
import ai.gpustack.kvcache.operator.sandbox.Kubelet;
import ai.gpustack.kvcache.operator.sandbox.SandboxServer;
import ai.gpustack.kvcache.resources.Keys;
import ai.gpustack.kvcache.resources.ModelDeployment;
import ai.gpustack.kvcache.resources.Setting;
import ai.gpustack.kvcache.spi.EngineRegistry;
import io.fabric8.kubernetes.api.model.HasMetadata;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.informers.SharedIndexInformer;
import io.javaoperatorsdk.operator.Operator;
import io.javaoperatorsdk.operator.api.reconciler.Context;
import io.javaoperatorsdk.operator.api.reconciler.ControllerConfiguration;
import io.javaoperatorsdk.operator.api.reconciler.Reconciler;
import io.javaoperatorsdk.operator.api.reconciler.UpdateControl;
import io.javaoperatorsdk.operator.monitoring.micrometer.MicrometerMetrics;
import io.micrometer.core.instrument.Counter;
import io.micrometer.prometheusmetrics.PrometheusConfig;
import io.micrometer.prometheusmetrics.PrometheusMeterRegistry;
import java.lang.management.ManagementFactory;
import java.time.Clock;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.atomic.AtomicLong;
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

  static final String BASE =
      """
      apiVersion: worker.gpustack.ai/v1
      kind: KVCacheBackend
      metadata: {name: mooncake}
      spec: {connection: {external: {clientEndpoint: "master.kv.svc:50051"}}}
      ---
      apiVersion: worker.gpustack.ai/v1
      kind: KVCachePool
      metadata: {name: shared}
      spec: {backends: [mooncake], quota: {total: 4Ti}}
      ---
      apiVersion: worker.gpustack.ai/v1
      kind: KVCachePoolBinding
      metadata: {name: fleet, namespace: bench}
      spec: {poolRef: {name: shared}, domain: {name: fleet, blockSize: 16, dtype: bfloat16}, quota: {ceiling: 1Ti}}
      """;

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

    try (SandboxServer server = SandboxServer.start(EngineRegistry.load(), 0)) {
      KubernetesClient client = server.client();
      Kubelet kubelet = new Kubelet(client, Duration.ofMillis(20));
      seed(client);
      SharedIndexInformer<Pod> watched = client.pods().inNamespace("bench").inform();

      PrometheusMeterRegistry registry = new PrometheusMeterRegistry(PrometheusConfig.DEFAULT);
      long started = System.nanoTime();
      KvCacheOperator operator =
          KvCacheOperator.start(
              client,
              EngineRegistry.load(),
              registry,
              new KvCacheOperator.Options(
                  Optional.empty(),
                  Duration.ofSeconds(15),
                  Optional.empty(),
                  Map.of(),
                  Clock.systemUTC()));
      Duration render = until(watched, all(pods, p -> flag(p) && ready(p)));
      assertThat(operator.ready()).as("operator healthy after the initial render").isTrue();
      double reconciles = reconciles(registry);
      report("start -> all Pods rendered and Ready", render, reconciles);

      setting(client, "false");
      Duration off = until(watched, all(pods, p -> !flag(p) && ready(p)));
      report("Setting off -> fleet rolled", off, reconciles(registry) - reconciles);
      reconciles = reconciles(registry);

      setting(client, "true");
      Duration on = until(watched, all(pods, p -> flag(p) && ready(p)));
      report("Setting on -> fleet rolled", on, reconciles(registry) - reconciles);
      long running = heapAfterGc();
      operator.close();
      System.out.printf(
          "operator retained heap after full GC: %.1f MiB (heap with it running minus after it"
              + " stopped; the API server's store and the benchmark's informer stay)%n",
          (running - heapAfterGc()) / 1048576.0);
      System.out.printf(
          "total %.1f s for %d Pods%n",
          (System.nanoTime() - started) / 1e9, watched.getStore().list().size());
      watched.close();
      kubelet.close();
      floor(client);
    }
  }

  /** The floor on the same cluster state: every deployment, every replica, one status patch. */
  static void floor(KubernetesClient client) {
    SharedIndexInformer<ModelDeployment> watched =
        client.resources(ModelDeployment.class).inNamespace("bench").inform();
    PrometheusMeterRegistry registry = new PrometheusMeterRegistry(PrometheusConfig.DEFAULT);
    Operator floor =
        new Operator(
            o ->
                o.withKubernetesClient(client)
                    .withUseSSAToPatchPrimaryResource(false)
                    .withCloseClientOnStop(false)
                    .withMetrics(MicrometerMetrics.withoutPerResourceMetrics(registry)));
    floor.register(new FloorReconciler());
    long start = System.nanoTime();
    floor.start();
    try {
      await(
          () ->
              watched.getStore().list().stream()
                      .filter(md -> md.getStatus() != null)
                      .filter(
                          md -> md.getStatus().phase().equals(Optional.of(FloorReconciler.PHASE)))
                      .count()
                  == DEPLOYMENTS);
      Duration took = Duration.ofNanos(System.nanoTime() - start);
      report("floor: start -> every status patched", took, reconciles(registry));
      long running = heapAfterGc();
      floor.stop();
      System.out.printf(
          "floor retained heap after full GC: %.1f MiB%n", (running - heapAfterGc()) / 1048576.0);
    } finally {
      floor.stop();
      watched.close();
    }
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
    apply(client, BASE);
    for (int i = 0; i < DEPLOYMENTS; i++) {
      apply(client, deployment(i));
    }
  }

  static void apply(KubernetesClient client, String yaml) {
    for (String doc : yaml.split("(?m)^---$")) {
      if (!doc.isBlank()) {
        HasMetadata o = client.getKubernetesSerialization().unmarshal(doc);
        client.resource(o).create();
      }
    }
  }

  static void setting(KubernetesClient client, String value) {
    client
        .resources(Setting.class)
        .inNamespace(Settings.NAMESPACE)
        .withName(Settings.KV_CACHE_DTYPE_OWNED.name())
        .edit(
            s -> {
              s.setSpec(SettingSpec.builder().value(value).build());
              return s;
            });
  }

  static Predicate<List<Pod>> all(int count, Predicate<Pod> each) {
    return list -> list.size() == count && list.stream().allMatch(each);
  }

  static boolean flag(Pod pod) {
    return pod.getSpec().getContainers().get(0).getCommand().contains("--kv-cache-dtype");
  }

  static boolean ready(Pod pod) {
    return pod.getMetadata().getDeletionTimestamp() == null
        && pod.getStatus() != null
        && pod.getStatus().getConditions() != null
        && pod.getStatus().getConditions().stream()
            .anyMatch(c -> "Ready".equals(c.getType()) && "True".equals(c.getStatus()));
  }

  static Duration until(SharedIndexInformer<Pod> pods, Predicate<List<Pod>> done) {
    long start = System.nanoTime();
    await(() -> done.test(pods.getStore().list()));
    return Duration.ofNanos(System.nanoTime() - start);
  }

  static void await(java.util.function.BooleanSupplier done) {
    long deadline = System.nanoTime() + PATIENCE.toNanos();
    while (!done.getAsBoolean()) {
      assertThat(System.nanoTime()).as("still waiting after %s", PATIENCE).isLessThan(deadline);
      try {
        Thread.sleep(100);
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
        throw new AssertionError(e);
      }
    }
  }

  /** Reconciliations JOSDK started so far, over every controller. */
  static double reconciles(PrometheusMeterRegistry registry) {
    AtomicLong total = new AtomicLong();
    registry.getMeters().stream()
        .filter(m -> m instanceof Counter)
        .filter(m -> m.getId().getName().endsWith("reconciliations.started"))
        .forEach(m -> total.addAndGet((long) ((Counter) m).count()));
    return total.get();
  }

  static void report(String phase, Duration took, double reconciles) {
    double seconds = took.toNanos() / 1e9;
    System.out.printf(
        "%s: %.1f s, %.0f reconciles, %.0f reconciles/s%n",
        phase, seconds, reconciles, reconciles / seconds);
  }

  static long heapAfterGc() {
    for (int i = 0; i < 3; i++) {
      ManagementFactory.getMemoryMXBean().gc();
    }
    return ManagementFactory.getMemoryMXBean().getHeapMemoryUsage().getUsed();
  }
}
