package ai.gpustack.kvcache.operator.cli;

import static org.assertj.core.api.Assertions.assertThat;

import ai.gpustack.kvcache.operator.TestObjects;
import ai.gpustack.kvcache.resources.Keys;
import ai.gpustack.kvcache.resources.KvCacheSerialization;
import ai.gpustack.kvcache.resources.ModelDeployment;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.client.Config;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.KubernetesClientBuilder;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@code kvcache sandbox --serve --no-operator} with a {@code kvcache run} of its own, both from
 * the shipped jar: the operator reconciles the examples, is killed with SIGKILL, misses a Setting
 * flip, and on restart rolls every attached replica to it.
 */
class NoOperatorSandboxIT {
  @TempDir Path dir;

  @Test
  void a_separate_operator_reconciles_the_examples_and_catches_up_after_a_kill() throws Exception {
    Path kubeconfig = dir.resolve("sandbox.kubeconfig");
    Path sandboxLog = dir.resolve("sandbox.log");
    Process sandbox =
        ShippedJar.start(
            sandboxLog,
            "sandbox",
            "--serve",
            "--no-operator",
            "--kubeconfig-out",
            kubeconfig.toString());
    Process run = null;
    try {
      TestObjects.await(
          "the sandbox to be ready",
          Duration.ofSeconds(60),
          () -> read(sandboxLog).contains("ready: "));
      assertThat(read(sandboxLog)).contains("No operator runs in this process");
      try (KubernetesClient client =
          new KubernetesClientBuilder()
              .withConfig(Config.fromKubeconfig(Files.readString(kubeconfig)))
              .withKubernetesSerialization(KvCacheSerialization.create())
              .build()) {
        // Nothing reconciles yet: the deployments are stored, without status or replicas.
        assertThat(deployments(client)).isNotEmpty().allMatch(md -> md.getStatus() == null);

        run = operator(kubeconfig, "run-1.log");
        awaitRendered(client, true);

        run.destroyForcibly().waitFor(30, TimeUnit.SECONDS);
        TestObjects.setting(client, "model-deployment-kv-cache-dtype-owned", "false");
        Thread.sleep(1_000);
        assertThat(attachedPods(client)).allMatch(p -> rendered(p));

        run = operator(kubeconfig, "run-2.log");
        awaitRendered(client, false);
      }
    } finally {
      if (run != null) {
        run.destroyForcibly();
      }
      sandbox.destroy();
      sandbox.waitFor(30, TimeUnit.SECONDS);
    }
  }

  private Process operator(Path kubeconfig, String log) throws Exception {
    return ShippedJar.start(
        dir.resolve(log),
        "run",
        "--kubeconfig",
        kubeconfig.toString(),
        "--no-webhook",
        "--health-listen",
        "127.0.0.1:" + ProcessIT.freePort());
  }

  /** Every attached replica Ready, with (or without) the Binding's dtype in its command. */
  private static void awaitRendered(KubernetesClient client, boolean owned) {
    TestObjects.await(
        "every attached replica " + (owned ? "with" : "without") + " the dtype",
        Duration.ofSeconds(90),
        () -> {
          List<ModelDeployment> mds = deployments(client);
          List<Pod> pods = attachedPods(client);
          return mds.stream()
                  .allMatch(
                      md ->
                          md.getStatus() != null
                              && md.getStatus().phase().map("Ready"::equals).orElse(false))
              && pods.size() == 4
              && pods.stream().allMatch(p -> rendered(p) == owned);
        });
  }

  private static List<ModelDeployment> deployments(KubernetesClient client) {
    return client.resources(ModelDeployment.class).inNamespace("team-a").list().getItems();
  }

  private static List<Pod> attachedPods(KubernetesClient client) {
    return client.pods().inNamespace("team-a").withLabel(Keys.MANAGED_BY).list().getItems().stream()
        .filter(p -> p.getMetadata().getDeletionTimestamp() == null)
        .toList();
  }

  private static boolean rendered(Pod pod) {
    return pod.getSpec().getContainers().get(0).getCommand().contains("--kv-cache-dtype");
  }

  private static String read(Path log) {
    try {
      return Files.exists(log) ? Files.readString(log) : "";
    } catch (java.io.IOException e) {
      throw new java.io.UncheckedIOException(e);
    }
  }
}
