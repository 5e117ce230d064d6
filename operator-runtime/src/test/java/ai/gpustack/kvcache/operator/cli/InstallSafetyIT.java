package ai.gpustack.kvcache.operator.cli;

import static ai.gpustack.kvcache.operator.cli.ProcessIT.await;
import static ai.gpustack.kvcache.operator.cli.ProcessIT.freePort;
import static ai.gpustack.kvcache.operator.cli.ProcessIT.send;
import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import ai.gpustack.kvcache.api.Settings;
import ai.gpustack.kvcache.operator.KvCacheOperator;
import ai.gpustack.kvcache.operator.Shell;
import ai.gpustack.kvcache.operator.TestObjects;
import ai.gpustack.kvcache.resources.Keys;
import ai.gpustack.kvcache.resources.Setting;
import ai.gpustack.kvcache.sandbox.Kubelet;
import ai.gpustack.kvcache.sandbox.SandboxServer;
import ai.gpustack.kvcache.spi.EngineRegistry;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.coordination.v1.Lease;
import io.fabric8.kubernetes.client.KubernetesClient;
import java.io.IOException;
import java.net.http.HttpClient;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.ZonedDateTime;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * What a platform engineer meets installing the operator: two {@code kvcache run} replicas sharing
 * a Lease, and the kustomize output applied to an empty cluster whose webhook Service has no
 * endpoint until the operator is Ready.
 */
class InstallSafetyIT {
  private static final String DEPLOYMENT =
      """
      apiVersion: worker.gpustack.ai/v1
      kind: ModelDeployment
      metadata: {name: solo, namespace: ns}
      spec: {model: {name: m}, engine: {name: SGLang}, roles: [{name: server, replicas: 2}]}
      """;

  @TempDir Path dir;

  private Process run(String identity, Path kubeconfig, int health, String... more)
      throws IOException {
    List<String> args =
        new ArrayList<>(
            List.of(
                "run",
                "--kubeconfig",
                kubeconfig.toString(),
                "--health-listen",
                "127.0.0.1:" + health,
                "--identity",
                identity));
    args.addAll(List.of(more));
    return ShippedJar.start(dir.resolve(identity + ".log"), args.toArray(String[]::new));
  }

  private String log(String identity) throws IOException {
    return Files.readString(dir.resolve(identity + ".log"));
  }

  private static Optional<String> holder(KubernetesClient client) {
    return Optional.ofNullable(
            client.leases().inNamespace(Settings.NAMESPACE).withName(KvCacheOperator.LEASE).get())
        .map(l -> l.getSpec().getHolderIdentity());
  }

  private static List<Pod> replicas(KubernetesClient client) {
    return client.pods().inNamespace("ns").withLabel(Keys.INSTANCE, "solo").list().getItems();
  }

  @Test
  @SuppressWarnings("try") // the kubelet only has to run meanwhile
  void a_leader_whose_lease_is_taken_exits_at_once_and_writes_nothing_after() throws Exception {
    try (SandboxServer cluster = SandboxServer.start(EngineRegistry.load(), 0);
        Kubelet kubelet = new Kubelet(cluster.client(), Duration.ofMillis(100))) {
      KubernetesClient client = cluster.client();
      Path kubeconfig = dir.resolve("kubeconfig");
      Files.writeString(kubeconfig, cluster.kubeconfig());
      List<String> audit = cluster.audit();
      Process first = run("first", kubeconfig, freePort(), "--no-webhook");
      int secondHealth = freePort();
      Process second = null;
      try {
        await("first to lead", () -> holder(client).orElse("").equals("first"));
        second = run("second", kubeconfig, secondHealth, "--no-webhook");
        HttpClient http = HttpClient.newHttpClient();
        await(
            "the follower to be Ready",
            () -> send(http, "http://127.0.0.1:" + secondHealth + "/readyz") == 200);
        TestObjects.apply(client, DEPLOYMENT);
        await(
            "two Ready replicas",
            () ->
                replicas(client).size() == 2
                    && replicas(client).stream()
                        .allMatch(ai.gpustack.kvcache.resources.Pods::ready));

        // Another identity holds the Lease now, as after a partition the first could not see.
        int takenAt = audit.size();
        // The leader renews the Lease meanwhile: the edit is retried on a conflict.
        TestObjects.edit(
            client,
            Lease.class,
            Settings.NAMESPACE,
            KvCacheOperator.LEASE,
            l -> {
              l.getSpec().setHolderIdentity("second");
              l.getSpec().setRenewTime(ZonedDateTime.now());
              l.getSpec().setAcquireTime(ZonedDateTime.now());
              return l;
            });
        assertThat(first.waitFor(15, TimeUnit.SECONDS))
            .as("the old leader exits once it sees the Lease held by another identity")
            .isTrue();
        assertThat(first.exitValue()).isEqualTo(1);
        assertThat(log("first"))
            .contains("first lost the lease gpustack-system/kvcache-operator")
            .contains("exiting (1) so that a restart rejoins as a follower");

        // The new leader acts alone: a deleted replica comes back once, from the second process.
        String deleted = replicas(client).get(0).getMetadata().getName();
        client.pods().inNamespace("ns").withName(deleted).delete();
        await(
            "the new leader to recreate the replica",
            () ->
                replicas(client).size() == 2
                    && replicas(client).stream()
                        .allMatch(p -> p.getMetadata().getDeletionTimestamp() == null));
        // From its first read of the taken Lease on, the old leader writes nothing: it halts.
        List<String> after = List.copyOf(audit.subList(takenAt, audit.size()));
        String leaseRead =
            "GET /apis/coordination.k8s.io/v1/namespaces/gpustack-system/leases/kvcache-operator"
                + " kvcache-operator/first";
        assertThat(after).contains(leaseRead);
        assertThat(after.subList(after.lastIndexOf(leaseRead), after.size()))
            .as("requests after the old leader read the Lease another identity held")
            .noneMatch(r -> r.endsWith("kvcache-operator/first") && !r.startsWith("GET "));
        assertThat(after)
            .as("the replacement replica")
            .anyMatch(
                r ->
                    r.startsWith("POST /api/v1/namespaces/ns/pods ")
                        && r.endsWith("kvcache-operator/second"))
            .noneMatch(r -> r.startsWith("POST ") && r.endsWith("kvcache-operator/first"));
        assertThat(second.isAlive()).isTrue();
        assertThat(log("second")).contains("leading as second");
      } finally {
        first.destroy();
        first.waitFor(20, TimeUnit.SECONDS);
        if (second != null) {
          second.destroy();
          second.waitFor(20, TimeUnit.SECONDS);
        }
      }
    }
  }

  /**
   * {@code kubectl apply -k deploy/kustomize/self-signed} on an empty cluster, then the operator as
   * the Deployment starts it: the Settings webhook it registers is {@code failurePolicy: Fail} and
   * its Service has no endpoint until this very process is Ready, so the Settings it creates must
   * wait for its own readiness instead of failing the start.
   */
  @Test
  void a_first_install_of_the_kustomize_output_starts_and_registers_its_webhook() throws Exception {
    assumeTrue(Shell.onPath("kubectl"), "kubectl is not on the PATH; it applies the overlay");
    try (SandboxServer cluster = SandboxServer.start(EngineRegistry.load(), 0)) {
      KubernetesClient client = cluster.client();
      Path kubeconfig = dir.resolve("kubeconfig");
      Files.writeString(kubeconfig, cluster.kubeconfig());
      int health = freePort();
      HttpClient http = HttpClient.newHttpClient();
      cluster.webhookEndpoints(() -> send(http, "http://127.0.0.1:" + health + "/readyz") == 200);
      Process apply =
          new ProcessBuilder(
                  "kubectl",
                  "--kubeconfig",
                  kubeconfig.toString(),
                  "apply",
                  "-k",
                  Path.of("..", "deploy", "kustomize", "self-signed").toString())
              .redirectErrorStream(true)
              .redirectOutput(dir.resolve("apply.log").toFile())
              .start();
      assertThat(apply.waitFor(60, TimeUnit.SECONDS)).isTrue();
      assertThat(apply.exitValue()).as(Files.readString(dir.resolve("apply.log"))).isZero();
      assertThat(client.resources(Setting.class).inNamespace(Settings.NAMESPACE).list().getItems())
          .as("a fresh cluster")
          .isEmpty();

      Process operator =
          run(
              "first-install",
              kubeconfig,
              health,
              "--self-signed-webhook-cert",
              "--webhook-listen",
              "127.0.0.1:" + freePort());
      try {
        try {
          await(
              "the default Settings, created once the operator is Ready",
              () ->
                  client
                          .resources(Setting.class)
                          .inNamespace(Settings.NAMESPACE)
                          .list()
                          .getItems()
                          .size()
                      == Settings.catalog().size());
        } catch (AssertionError e) {
          throw new AssertionError(
              e.getMessage() + "; the operator's log:\n" + log("first-install"), e);
        }
        assertThat(operator.isAlive()).as(log("first-install")).isTrue();
        assertThat(send(http, "http://127.0.0.1:" + health + "/readyz")).isEqualTo(200);
        assertThat(log("first-install"))
            .as("the create met the missing endpoint first, and waited")
            .contains("cannot create Setting gpustack-system/" + Settings.catalog().get(0).name())
            .contains("no endpoints available for service \"kvcache-webhook\"");
        // registered: both configurations trust the operator's own CA
        await(
            "the webhook configurations' caBundle",
            () ->
                client
                        .admissionRegistration()
                        .v1()
                        .mutatingWebhookConfigurations()
                        .withName("kvcache.gpustack.ai")
                        .get()
                        .getWebhooks()
                        .stream()
                        .allMatch(w -> w.getClientConfig().getCaBundle() != null)
                    && client
                        .admissionRegistration()
                        .v1()
                        .validatingWebhookConfigurations()
                        .withName("kvcache.gpustack.ai")
                        .get()
                        .getWebhooks()
                        .stream()
                        .allMatch(w -> w.getClientConfig().getCaBundle() != null));
        // and the webhook answers through the chain now
        TestObjects.apply(client, TestObjects.store("ns", "chat"));
      } finally {
        operator.destroy();
        operator.waitFor(20, TimeUnit.SECONDS);
      }
    }
  }
}
