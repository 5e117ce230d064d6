package ai.gpustack.kvcache.operator.e2e;

import static org.assertj.core.api.Assertions.assertThat;

import ai.gpustack.kvcache.api.Settings;
import ai.gpustack.kvcache.operator.Shell;
import ai.gpustack.kvcache.operator.cli.ShippedJar;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.PodTemplateSpec;
import io.fabric8.kubernetes.client.KubernetesClient;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.time.Duration;
import java.util.Arrays;
import java.util.Map;
import java.util.TreeMap;
import java.util.stream.Collectors;
import java.util.stream.StreamSupport;
import org.junit.jupiter.api.Test;

/**
 * The previous release upgraded to this build, as docs/operating.md's "Upgrading the operator"
 * says, with {@code kubectl apply -k} and with {@code helm upgrade}; and, with kubectl, from the
 * commit before a change that moved every replica's pod-spec hash (and its CRD, RBAC and admission
 * policies), so that preflight's count is tested where it is not zero. Each on a control plane of
 * its own. The release ({@code tools/release/previous.sh}: its jar, manifests, chart and examples,
 * built from this repository's history) is installed and its examples stored through it; {@code
 * kvcache preflight} of this build predicts the upgrade; then CRDs first, the operator's objects
 * second, and the replicas handed over as a rolling update hands them: the new one Ready and in the
 * webhook Service's endpoints before the old one leaves them and stops. Then it is rolled back the
 * same way. Meanwhile valid Pods are created five a second. Shown: the stored objects read and
 * reconcile under each new leader, the replicas replaced are the ones preflight counted, injected
 * Pods stay, and the webhook refuses no valid Pod.
 */
class UpgradeE2E {
  private static final ObjectMapper JSON = new ObjectMapper();
  private static final String NS = "team-a";
  private static final Duration PATIENCE = Duration.ofSeconds(120);

  /**
   * The commit before operator-built Pods met the restricted Pod Security Standard, which moved
   * every replica's pod-spec hash (upgrading-to-an-enforced-binding-dtype.md announces the roll).
   */
  private static final String BEFORE_POD_SECURITY = "e0b1fcdad596ab58ada40d0b53a885ccc2107387";

  @Test
  void kubectl_apply_k_upgrades_with_no_unannounced_restart_and_no_refusal() throws Exception {
    Path previous = BuildScript.folder("release/previous.sh", "release: ");
    Outcome upgrade = upgrade("kustomize", previous, new Kustomize(previous));
    assertThat(upgrade.replaced()).isEqualTo(upgrade.predicted());
  }

  @Test
  void helm_upgrade_with_no_unannounced_restart_and_no_refusal() throws Exception {
    Path previous = BuildScript.folder("release/previous.sh", "release: ");
    Outcome upgrade = upgrade("helm", previous, new HelmRelease(previous, Helm.binary()));
    assertThat(upgrade.replaced()).isEqualTo(upgrade.predicted());
  }

  @Test
  void across_a_change_that_moves_every_hash_the_replicas_preflight_counted_roll()
      throws Exception {
    Path before = BuildScript.folder("release/previous.sh", "release: ", BEFORE_POD_SECURITY);
    Outcome upgrade = upgrade("pod-security", before, new Kustomize(before));
    assertThat(upgrade.predicted()).as("preflight's count").isEqualTo(upgrade.replicas());
    assertThat(upgrade.replaced()).isEqualTo(upgrade.predicted());
  }

  /** How one tool installs a release and upgrades it to this build. */
  private interface Installer {
    /** The release's CRDs and objects, its webhooks calling {@code webhookPort}. */
    void install(Shell admin, int webhookPort);

    /** This build's: CRDs first, then the operator's objects. */
    void upgrade(Shell admin, int webhookPort);

    /** The release's operator objects again, this build's CRDs kept. */
    void rollBack(Shell admin, int webhookPort);
  }

  /** {@code kubectl apply} of the self-signed overlay, as operating.md says. */
  private record Kustomize(Path release) implements Installer {
    @Override
    public void install(Shell admin, int webhookPort) {
      crds(admin, "apply -k " + release.resolve("deploy/crds"));
      Installation.apply(
          admin, release.resolve("deploy/kustomize/self-signed"), webhookPort, "previous.yaml");
    }

    @Override
    public void upgrade(Shell admin, int webhookPort) {
      crds(admin, "apply -k " + Installation.REPO.resolve("deploy/crds"));
      Installation.apply(
          admin,
          Installation.REPO.resolve("deploy/kustomize/self-signed"),
          webhookPort,
          "current.yaml");
    }

    @Override
    public void rollBack(Shell admin, int webhookPort) {
      Installation.apply(
          admin, release.resolve("deploy/kustomize/self-signed"), webhookPort, "rollback.yaml");
      crds(admin, "apply -k " + Installation.REPO.resolve("deploy/crds"));
    }
  }

  /** {@code helm install}, {@code helm upgrade} and {@code helm rollback}, as operating.md says. */
  private record HelmRelease(Path release, Path helm) implements Installer {
    @Override
    public void install(Shell admin, int webhookPort) {
      admin
          .sh(
              withPostRenderer(helm, admin, webhookPort)
                  + " install kvcache-operator "
                  + release.resolve("deploy/helm/kvcache-operator")
                  + " -n "
                  + Settings.NAMESPACE
                  + " --create-namespace --wait --timeout 120s --post-renderer loopback-webhooks")
          .ok();
    }

    @Override
    public void upgrade(Shell admin, int webhookPort) {
      // helm upgrade never touches crds/: they go first, by hand.
      admin
          .sh(
              helm
                  + " show crds "
                  + Helm.CHART
                  + " | kubectl apply --server-side --force-conflicts -f -")
          .ok();
      Installation.crdsEstablished(admin);
      admin
          .sh(
              withPostRenderer(helm, admin, webhookPort)
                  + " upgrade kvcache-operator "
                  + Helm.CHART
                  + " -n "
                  + Settings.NAMESPACE
                  + " --wait --timeout 120s --post-renderer loopback-webhooks")
          .ok();
    }

    @Override
    public void rollBack(Shell admin, int webhookPort) {
      admin
          .sh(
              helm
                  + " rollback kvcache-operator -n "
                  + Settings.NAMESPACE
                  + " --wait --timeout 120s")
          .ok();
    }
  }

  /** What an upgrade did: the replicas before it, those replaced, and preflight's count. */
  private record Outcome(int replicas, int replaced, int predicted) {}

  private static Outcome upgrade(String tool, Path previous, Installer installer) throws Exception {
    try (ControlPlane cluster = ControlPlane.start("kvcache-upgrade-" + tool);
        WebhookService service = WebhookService.start()) {
      Shell admin = cluster.shell(ControlPlane.WORK.resolve("upgrade-" + tool));
      KubernetesClient client = cluster.admin();
      installer.install(admin, service.port());
      Path kubeconfig =
          Installation.serviceAccountKubeconfig(admin, admin.home().resolve("operator.kubeconfig"));
      Replica old = Replica.start(previous.resolve("kvcache.jar"), kubeconfig, "previous", admin);
      service.add(old.port);
      Replica next = null;
      try {
        admin.kubectl("apply -k " + previous.resolve("examples/sandbox")).ok();
        admin
            .kubectl(
                "wait --for=jsonpath={.status.phase}=Ready md --all -n " + NS + " --timeout=120s")
            .ok();
        admin.kubectl("rollout status deployment/injected-vllm -n " + NS + " --timeout=120s").ok();
        String stored = storedObjects(admin);
        Map<String, String> replicas = replicaPods(client);
        Map<String, String> injected = injectedPods(client);
        Map<String, String> operators = operatorPods(client);
        Shell.Run preflight =
            admin.sh("java -jar " + ShippedJar.JAR.toAbsolutePath() + " preflight -o json");
        int predictedRolls =
            StreamSupport.stream(
                    JSON.readTree(preflight.out()).path("rollouts").spliterator(), false)
                .mapToInt(r -> r.path("rollOnUpgrade").asInt())
                .sum();
        PodTemplateSpec template =
            client
                .apps()
                .deployments()
                .inNamespace(NS)
                .withName("injected-vllm")
                .get()
                .getSpec()
                .getTemplate();

        AdmissionProbe upgrade = AdmissionProbe.start(client, NS, template, "upgrade");
        try (upgrade) {
          installer.upgrade(admin, service.port());
          next = Replica.start(ShippedJar.JAR, kubeconfig, "current", admin);
          handOver(admin, service, old, next);
          reconciledByTheNewLeader(admin);
        }
        assertThat(storedObjects(admin)).as("every stored object still reads").isEqualTo(stored);
        int replaced = replacedOnceSettled(client, replicas, predictedRolls);
        assertThat(injectedPods(client))
            .as("an operator upgrade never replaces an injected Pod")
            .isEqualTo(injected);
        admittedAndInjected(client, upgrade);
        System.out.printf(
            "upgrade with %s: %d of %d replicas replaced (preflight predicted %d), %d of %d"
                + " injected Pods, %d of %d operator Pods; %d Pods admitted, %d refused%n",
            tool,
            replaced,
            replicas.size(),
            predictedRolls,
            replaced(injected, injectedPods(client)),
            injected.size(),
            replaced(operators, operatorPods(client)),
            operators.size(),
            upgrade.admitted().size(),
            upgrade.refused().size());

        AdmissionProbe rollBack = AdmissionProbe.start(client, NS, template, "rollback");
        try (rollBack) {
          installer.rollBack(admin, service.port());
          Replica back = Replica.start(previous.resolve("kvcache.jar"), kubeconfig, "back", admin);
          handOver(admin, service, next, back);
          next = back;
          reconciledByTheNewLeader(admin);
        }
        assertThat(storedObjects(admin))
            .as("every stored object reads after the rollback")
            .isEqualTo(stored);
        admittedAndInjected(client, rollBack);
        System.out.printf(
            "rollback with %s: %d Pods admitted, %d refused%n",
            tool, rollBack.admitted().size(), rollBack.refused().size());
        return new Outcome(replicas.size(), replaced, predictedRolls);
      } finally {
        old.process.close();
        if (next != null) {
          next.process.close();
        }
      }
    }
  }

  /**
   * How many of {@code replicas} were replaced, once the roll has had the time to reach {@code
   * expected} (a roll replaces one replica per role at a time) and then a few seconds more, so that
   * one going further is counted too.
   */
  private static int replacedOnceSettled(
      KubernetesClient client, Map<String, String> replicas, int expected)
      throws InterruptedException {
    long deadline = System.nanoTime() + PATIENCE.toNanos();
    while (System.nanoTime() < deadline && replaced(replicas, replicaPods(client)) < expected) {
      Thread.sleep(500);
    }
    Thread.sleep(3_000);
    return replaced(replicas, replicaPods(client));
  }

  /** One operator replica: its process and the port its webhook listens on. */
  private record Replica(OperatorProcess process, int port, String identity) {
    static Replica start(Path jar, Path kubeconfig, String identity, Shell admin) {
      int port = OperatorProcess.freePort();
      return new Replica(
          OperatorProcess.start(
              jar, kubeconfig, port, identity, admin.home().resolve(identity + ".log")),
          port,
          identity);
    }
  }

  /**
   * A rolling update's step: {@code to}, Ready, joins the Service's endpoints; {@code from} leaves
   * them and is stopped; {@code to} holds the Lease.
   */
  private static void handOver(Shell admin, WebhookService service, Replica from, Replica to) {
    service.add(to.port);
    service.remove(from.port);
    long stopped = System.nanoTime();
    from.process.close();
    admin
        .until(
            "kubectl get lease kvcache-operator -n "
                + Settings.NAMESPACE
                + " -o jsonpath={.spec.holderIdentity}",
            r -> r.out().equals(to.identity),
            PATIENCE)
        .ok();
    System.out.printf(
        "lease from %s to %s in %d ms after the stop%n",
        from.identity, to.identity, (System.nanoTime() - stopped) / 1_000_000);
  }

  /** No valid Pod was refused, and each one created went through the webhook. */
  private static void admittedAndInjected(KubernetesClient client, AdmissionProbe probe) {
    assertThat(probe.refused()).as("valid Pods refused during the hand-over").isEmpty();
    assertThat(probe.admitted()).hasSizeGreaterThan(5);
    for (String name : probe.admitted()) {
      Pod pod = client.pods().inNamespace(NS).withName(name).get();
      assertThat(pod.getSpec().getContainers().get(0).getArgs())
          .as("%s went through the webhook", name)
          .contains("--kv-cache-dtype");
    }
  }

  /** Applies CRDs with {@code kubectl <apply>} and waits until the API server serves them. */
  private static void crds(Shell admin, String apply) {
    admin.kubectl(apply).ok();
    Installation.crdsEstablished(admin);
  }

  /**
   * Each stored deployment given one more replica: the new leader must read it, reconcile it and
   * report it Ready at its generation.
   */
  private static void reconciledByTheNewLeader(Shell admin) {
    String names = admin.kubectl("get md -n " + NS + " -o name").ok().out();
    for (String md : names.lines().toList()) {
      int replicas =
          Integer.parseInt(
              admin
                  .kubectl("get " + md + " -n " + NS + " -o jsonpath={.spec.roles[0].replicas}")
                  .ok()
                  .out());
      admin
          .kubectl(
              "patch "
                  + md
                  + " -n "
                  + NS
                  + " --type=json -p '[{\"op\": \"replace\", \"path\": \"/spec/roles/0/replicas\","
                  + " \"value\": "
                  + (replicas + 1)
                  + "}]'")
          .ok();
    }
    admin
        .until(
            "kubectl get md -n "
                + NS
                + " -o jsonpath='{range .items[*]}{.metadata.generation}/"
                + "{.status.observedGeneration}/{.status.phase} {end}'",
            r ->
                r.out().strip().lines().count() == 1
                    && Arrays.stream(r.out().strip().split(" "))
                        .allMatch(s -> s.matches("(\\d+)/\\1/Ready")),
            PATIENCE)
        .ok();
  }

  private static String storedObjects(Shell admin) {
    return admin
        .kubectl("get kvcachebackends,kvcachepools,kvcachepoolbindings,modeldeployments -A -o name")
        .ok()
        .out();
  }

  /** The operator-built replicas in team-a, name to UID. */
  private static Map<String, String> replicaPods(KubernetesClient client) {
    return uids(client, NS, "app.kubernetes.io/name", "model-deployment");
  }

  /** The example's injected Deployment's Pods, name to UID. */
  private static Map<String, String> injectedPods(KubernetesClient client) {
    return uids(client, NS, "app", "injected-vllm");
  }

  /** The operator Deployment's Pods (KWOK's), name to UID. */
  private static Map<String, String> operatorPods(KubernetesClient client) {
    return uids(client, Settings.NAMESPACE, "app.kubernetes.io/name", "kvcache-operator");
  }

  private static Map<String, String> uids(
      KubernetesClient client, String namespace, String label, String value) {
    return client.pods().inNamespace(namespace).withLabel(label, value).list().getItems().stream()
        .collect(
            Collectors.toMap(
                p -> p.getMetadata().getName(),
                p -> p.getMetadata().getUid(),
                (a, b) -> a,
                TreeMap::new));
  }

  /** How many of {@code before}'s Pods are gone or were replaced under their name. */
  private static int replaced(Map<String, String> before, Map<String, String> after) {
    return (int)
        before.entrySet().stream().filter(e -> !e.getValue().equals(after.get(e.getKey()))).count();
  }

  /**
   * {@code helm} with a plugin home holding the post-renderer that points each webhook at {@code
   * webhookPort} on loopback (no cluster network reaches a Service here).
   */
  private static String withPostRenderer(Path helm, Shell admin, int webhookPort) {
    Path plugin = admin.home().resolve("helm-plugins/loopback-webhooks");
    try {
      Files.createDirectories(plugin);
      Files.writeString(
          plugin.resolve("plugin.yaml"),
          """
          apiVersion: v1
          type: postrenderer/v1
          name: loopback-webhooks
          version: 0.1.0
          runtime: subprocess
          runtimeConfig:
            platformCommand:
              - command: ${HELM_PLUGIN_DIR}/render.sh
          """);
      Path render = plugin.resolve("render.sh");
      Files.writeString(
          render,
          "#!/bin/sh\nexec '%s' -cp '%s' %s\n"
              .formatted(
                  ProcessHandle.current().info().command().orElse("java"),
                  System.getProperty(
                      "surefire.test.class.path", System.getProperty("java.class.path")),
                  LoopbackWebhooks.class.getName()));
      Files.setPosixFilePermissions(render, PosixFilePermissions.fromString("rwxr-xr-x"));
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
    return "HELM_PLUGINS="
        + plugin.getParent()
        + " KVCACHE_WEBHOOK_PORT="
        + webhookPort
        + " "
        + helm;
  }
}
