package ai.gpustack.kvcache.operator;

import static org.assertj.core.api.Assertions.assertThat;

import ai.gpustack.kvcache.operator.cli.Sandbox;
import ai.gpustack.kvcache.resources.KVCachePoolBinding;
import ai.gpustack.kvcache.resources.Keys;
import ai.gpustack.kvcache.resources.ModelDeployment;
import ai.gpustack.kvcache.resources.Pods;
import ai.gpustack.kvcache.sandbox.Faults;
import ai.gpustack.kvcache.spi.EngineRegistry;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.client.KubernetesClient;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.Set;
import java.util.TreeMap;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicReference;
import java.util.stream.Collectors;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The chaos suite: {@code kvcache run} as its own process against {@code sandbox --no-operator}
 * with faults on (errors, latency, dropped and expired watches), 100 deployments × 4 replicas, a
 * Setting flip, ten deployments deleted mid-roll, and the operator SIGKILLed at random moments
 * during the roll ({@code kvcache.chaos.kills}, 20) and restarted. It must then converge: every
 * replica with the expected argv, each deployment with exactly its replicas and each ordinal once,
 * never more than one replica per role unavailable at a sampled moment, the Binding's usedBy equal
 * to the deployments attached, no orphan Pods, no stuck finalizers. Prints the kills, the faults
 * injected by class and the time to converge after the last kill. Run with {@code ./mvnw -B -Pchaos
 * verify -pl operator-runtime -am}.
 */
class OperatorChaos {
  static final int DEPLOYMENTS = Integer.getInteger("kvcache.chaos.deployments", 100);
  static final int KILLS = Integer.getInteger("kvcache.chaos.kills", 20);
  static final int REPLICAS = 4;
  static final String NS = "chaos";
  static final String FAULTS =
      System.getProperty(
          "kvcache.chaos.faults",
          "rate=0.05,codes=409,429,500,503,latency=0-100ms,watch-drop=20s,expired=0.02");

  @TempDir Path dir;

  @Test
  void the_operator_killed_during_a_roll_under_api_faults_converges_and_loses_nothing()
      throws Exception {
    long seed = Long.getLong("kvcache.chaos.seed", System.nanoTime());
    Random random = new Random(seed);
    try (Sandbox sandbox =
        Sandbox.start(EngineRegistry.load(), 0, new PrintWriter(new StringWriter()), false)) {
      KubernetesClient client = sandbox.client();
      Faults faults = Faults.parse(FAULTS + ",seed=" + seed);
      Path kubeconfig = fleet(sandbox, faults);

      AtomicInteger generation = new AtomicInteger();
      AtomicReference<Process> operator =
          new AtomicReference<>(
              operator(kubeconfig, "chaos-operator", generation.incrementAndGet()));
      long start = System.nanoTime();
      awaitConverged(client, true, Set.of(), Duration.ofMinutes(10));
      double cold = (System.nanoTime() - start) / 1e9;

      Sampler sampler = new Sampler(client);
      Thread sampling = new Thread(sampler, "chaos-sampler");
      sampling.start();
      TestObjects.setting(client, "model-deployment-kv-cache-dtype-owned", "false");
      Set<String> deleted = new java.util.TreeSet<>();
      int kills = 0;
      while (kills < KILLS) {
        Thread.sleep(500 + random.nextInt(2500));
        operator.get().destroyForcibly().waitFor(30, TimeUnit.SECONDS);
        kills++;
        if (kills == KILLS / 2) {
          // Deleted while no operator runs: their finalizers wait for the next one.
          for (int i = 0; i < 10; i++) {
            String name = name(i * 10);
            client.resources(ModelDeployment.class).inNamespace(NS).withName(name).delete();
            deleted.add(name);
          }
        }
        Thread.sleep(random.nextInt(1500));
        operator.set(operator(kubeconfig, "chaos-operator", generation.incrementAndGet()));
      }
      long lastKill = System.nanoTime();
      awaitConverged(client, false, deleted, Duration.ofMinutes(10));
      double converge = (System.nanoTime() - lastKill) / 1e9;
      sampler.stop = true;
      sampling.join();
      operator.get().destroyForcibly();

      System.out.printf(
          "chaos: %d deployments x %d, seed %d, faults %s%n"
              + "chaos: cold start under faults %.1f s%n"
              + "chaos: kills %d, faults injected %d %s%n"
              + "chaos: converged %.1f s after the last kill%n"
              + "chaos: samples %d, most replicas of one role unavailable at once %d%n",
          DEPLOYMENTS,
          REPLICAS,
          seed,
          FAULTS,
          cold,
          kills,
          faults.total(),
          faults.injected(),
          converge,
          sampler.samples,
          sampler.worst);
      assertThat(kills).isGreaterThanOrEqualTo(KILLS);
      assertThat(sampler.worst)
          .as("replicas of one role unavailable at once")
          .isLessThanOrEqualTo(1);
      assertThat(sampler.samples).isPositive();
    }
  }

  /**
   * Two operators with different identities: one leads, the other waits; the leader is killed in
   * the middle of a roll and the other takes the Lease within its duration. From the sandbox's
   * audit log (each request with its user agent), no reconciled object is written by the follower
   * before the leader is gone.
   */
  @Test
  void a_killed_leaders_follower_takes_over_within_the_lease_and_never_writes_alongside_it()
      throws Exception {
    long seed = Long.getLong("kvcache.chaos.seed", System.nanoTime());
    try (Sandbox sandbox =
        Sandbox.start(EngineRegistry.load(), 0, new PrintWriter(new StringWriter()), false)) {
      KubernetesClient client = sandbox.client();
      Faults faults = Faults.parse(FAULTS + ",seed=" + seed);
      Path kubeconfig = fleet(sandbox, faults);
      List<String> audit = sandbox.server().audit();

      Process a = operator(kubeconfig, "leader-a", 1);
      TestObjects.await(
          "chaos-a leading", Duration.ofSeconds(60), () -> "leader-a".equals(holder(client)));
      Process b = operator(kubeconfig, "leader-b", 2);
      awaitConverged(client, true, Set.of(), Duration.ofMinutes(10));

      TestObjects.setting(client, "model-deployment-kv-cache-dtype-owned", "false");
      Thread.sleep(1_000 + new Random(seed).nextInt(3_000));
      a.destroyForcibly().waitFor(30, TimeUnit.SECONDS);
      int killedAt;
      synchronized (audit) {
        killedAt = audit.size();
      }
      long killed = System.nanoTime();
      TestObjects.await(
          "chaos-b leading", Duration.ofSeconds(60), () -> "leader-b".equals(holder(client)));
      double takeover = (System.nanoTime() - killed) / 1e9;
      awaitConverged(client, false, Set.of(), Duration.ofMinutes(10));
      b.destroyForcibly();

      List<String> writes;
      synchronized (audit) {
        writes = List.copyOf(audit);
      }
      List<String> early = new ArrayList<>();
      int byA = 0;
      int byB = 0;
      for (int i = 0; i < writes.size(); i++) {
        String entry = writes.get(i);
        // Reads, the Lease itself and the start-up permission check are not writes of objects.
        if (entry.startsWith("GET ")
            || entry.contains("/leases")
            || entry.contains("/apis/authorization.k8s.io/")) {
          continue;
        }
        if (entry.endsWith("kvcache-operator/leader-a")) {
          byA++;
        } else if (entry.endsWith("kvcache-operator/leader-b")) {
          byB++;
          if (i < killedAt) {
            early.add(entry);
          }
        }
      }
      System.out.printf(
          "chaos: two identities, leader killed mid-roll: follower leads %.1f s later (lease 15 s);"
              + " writes before the kill %d by the leader, %d by the follower; after it %d by the"
              + " follower%n",
          takeover, byA, early.size(), byB - early.size());
      assertThat(early).as("the follower's writes while the leader lived").isEmpty();
      assertThat(byA).isPositive();
      assertThat(byB).isPositive();
      assertThat(takeover).isLessThan(30.0);
    }
  }

  /**
   * Stores the Binding and the fleet, turns {@code faults} on, and writes the kubeconfig an
   * operator started apart connects with.
   */
  private Path fleet(Sandbox sandbox, Faults faults) throws java.io.IOException {
    TestObjects.apply(sandbox.client(), TestObjects.store(NS, "fleet"));
    for (int i = 0; i < DEPLOYMENTS; i++) {
      TestObjects.apply(sandbox.client(), deployment(i));
    }
    Path kubeconfig = dir.resolve("sandbox.kubeconfig");
    Files.writeString(kubeconfig, sandbox.server().kubeconfig());
    sandbox.server().faults(faults);
    return kubeconfig;
  }

  private static String holder(KubernetesClient client) {
    var lease = client.leases().inNamespace("gpustack-system").withName("kvcache-operator").get();
    return lease == null || lease.getSpec() == null ? null : lease.getSpec().getHolderIdentity();
  }

  /**
   * Every surviving deployment Ready with its replicas, each ordinal once, each argv with (or
   * without) the dtype; the deleted ones gone with their Pods; the Binding's usedBy naming exactly
   * the survivors.
   */
  private static void awaitConverged(
      KubernetesClient client, boolean owned, Set<String> deleted, Duration patience) {
    TestObjects.await(
        "the fleet converged (" + (owned ? "dtype rendered" : "no dtype") + ")",
        patience,
        () -> {
          try {
            return converged(client, owned, deleted).isEmpty();
          } catch (RuntimeException e) {
            return false;
          }
        });
    assertThat(converged(client, owned, deleted)).isEmpty();
  }

  /** What is not yet as it should be; empty when converged. */
  static List<String> converged(KubernetesClient client, boolean owned, Set<String> deleted) {
    List<String> wrong = new ArrayList<>();
    List<ModelDeployment> mds =
        client.resources(ModelDeployment.class).inNamespace(NS).list().getItems();
    Map<String, List<Pod>> pods =
        client.pods().inNamespace(NS).list().getItems().stream()
            .collect(Collectors.groupingBy(p -> String.valueOf(label(p, Keys.INSTANCE))));
    Set<String> alive =
        mds.stream().map(m -> m.getMetadata().getName()).collect(Collectors.toSet());
    for (String name : deleted) {
      if (alive.contains(name)) {
        wrong.add(name + " still there (finalizers " + finalizers(mds, name) + ")");
      }
    }
    for (String instance : pods.keySet()) {
      if (!alive.contains(instance)) {
        wrong.add("orphan Pods of " + instance);
      }
    }
    for (ModelDeployment md : mds) {
      String name = md.getMetadata().getName();
      if (md.getStatus() == null || !md.getStatus().phase().map("Ready"::equals).orElse(false)) {
        wrong.add(name + " not Ready");
        continue;
      }
      List<Pod> own = pods.getOrDefault(name, List.of());
      List<Integer> ordinals = own.stream().map(Pods::ordinal).sorted().toList();
      if (!ordinals.equals(List.of(0, 1, 2, 3))) {
        wrong.add(name + " ordinals " + ordinals);
      }
      for (Pod p : own) {
        boolean rendered =
            p.getSpec().getContainers().get(0).getCommand().contains("--kv-cache-dtype");
        if (rendered != owned || !Pods.ready(p) || p.getMetadata().getDeletionTimestamp() != null) {
          wrong.add(p.getMetadata().getName() + " not as expected");
        }
      }
    }
    KVCachePoolBinding binding =
        client.resources(KVCachePoolBinding.class).inNamespace(NS).withName("fleet").get();
    Set<String> usedBy =
        binding.getStatus() == null
            ? Set.of()
            : binding.getStatus().usedBy().stream().map(w -> w.name()).collect(Collectors.toSet());
    if (!usedBy.equals(alive)) {
      wrong.add(
          "usedBy differs from the deployments attached by "
              + usedBy.size()
              + " vs "
              + alive.size());
    }
    return wrong;
  }

  private static List<String> finalizers(List<ModelDeployment> mds, String name) {
    return mds.stream()
        .filter(m -> m.getMetadata().getName().equals(name))
        .flatMap(m -> m.getMetadata().getFinalizers().stream())
        .toList();
  }

  /** Samples, every 200 ms, how many replicas of each role are missing or not Ready. */
  static final class Sampler implements Runnable {
    final KubernetesClient client;
    volatile boolean stop;
    volatile int worst;
    volatile int samples;

    Sampler(KubernetesClient client) {
      this.client = client;
    }

    @Override
    public void run() {
      while (!stop) {
        try {
          Set<String> serving =
              client.resources(ModelDeployment.class).inNamespace(NS).list().getItems().stream()
                  .filter(m -> m.getMetadata().getDeletionTimestamp() == null)
                  .map(m -> m.getMetadata().getName())
                  .collect(Collectors.toSet());
          Map<String, Long> available = new TreeMap<>();
          for (Pod p : client.pods().inNamespace(NS).list().getItems()) {
            if (Pods.ready(p) && p.getMetadata().getDeletionTimestamp() == null) {
              available.merge(String.valueOf(label(p, Keys.INSTANCE)), 1L, Long::sum);
            }
          }
          for (String name : serving) {
            worst = (int) Math.max(worst, REPLICAS - available.getOrDefault(name, 0L));
          }
          samples++;
          Thread.sleep(200);
        } catch (InterruptedException e) {
          return;
        } catch (RuntimeException e) {
          // A read in the middle of a change: sample again.
        }
      }
    }
  }

  static String name(int i) {
    return String.format("md-%03d", i);
  }

  static String deployment(int i) {
    return """
        apiVersion: worker.gpustack.ai/v1
        kind: ModelDeployment
        metadata: {name: %s, namespace: chaos}
        spec:
          model: {name: org/model-%d}
          engine: {name: vLLM, version: 0.11.0}
          kvCache: {poolRef: {name: fleet}}
          roles: [{name: server, replicas: %d}]
        """
        .formatted(name(i), i, REPLICAS);
  }

  private Process operator(Path kubeconfig, String identity, int generation) throws Exception {
    List<String> command = new ArrayList<>();
    command.add(ProcessHandle.current().info().command().orElse("java"));
    command.addAll(
        List.of(
            "-cp",
            System.getProperty("java.class.path"),
            "ai.gpustack.kvcache.operator.cli.KvCacheCommand",
            "run",
            "--kubeconfig",
            kubeconfig.toString(),
            "--no-webhook",
            "--identity",
            identity,
            "--health-listen",
            "127.0.0.1:" + freePort()));
    return new ProcessBuilder(command)
        .redirectErrorStream(true)
        .redirectOutput(dir.resolve(identity + "-" + generation + ".log").toFile())
        .start();
  }

  static int freePort() throws java.io.IOException {
    try (java.net.ServerSocket s = new java.net.ServerSocket(0)) {
      return s.getLocalPort();
    }
  }

  static String label(Pod pod, String key) {
    return pod.getMetadata().getLabels() == null ? null : pod.getMetadata().getLabels().get(key);
  }
}
