package ai.gpustack.kvcache.operator.deploy;

import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import ai.gpustack.kvcache.operator.Release;
import ai.gpustack.kvcache.resources.KvCacheSerialization;
import io.fabric8.kubernetes.api.model.HasMetadata;
import io.fabric8.kubernetes.api.model.admissionregistration.v1.MutatingWebhookConfiguration;
import io.fabric8.kubernetes.api.model.apps.Deployment;
import java.io.File;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;

/**
 * The committed {@code deploy/} tree equals what {@link DeployManifests} generates, and each
 * overlay renders with the real {@code kubectl kustomize} into what an install needs.
 */
class DeployManifestsTest {
  static final Path DEPLOY = Path.of("..", "deploy");

  static List<String> crdFiles() {
    return Arrays.stream(DEPLOY.resolve("crds").toFile().listFiles())
        .map(File::getName)
        .filter(n -> !n.equals("kustomization.yaml"))
        .sorted()
        .toList();
  }

  /** The committed CRD files by name, which the chart carries in its crds/. */
  static Map<String, String> crds() throws Exception {
    Map<String, String> crds = new java.util.TreeMap<>();
    for (String name : crdFiles()) {
      crds.put(name, Files.readString(DEPLOY.resolve("crds").resolve(name)));
    }
    return crds;
  }

  @Test
  void the_committed_manifests_are_the_generated_ones() throws Exception {
    Map<String, String> files = DeployManifests.files(crds());
    for (Map.Entry<String, String> f : files.entrySet()) {
      Path committed = DEPLOY.resolve(f.getKey());
      if (Boolean.getBoolean("kvcache.golden.write")) {
        Files.createDirectories(committed.getParent());
        Files.writeString(committed, f.getValue(), StandardCharsets.UTF_8);
      }
      assertThat(committed)
          .as("deploy/%s is missing; regenerate with -Dkvcache.golden.write=true", f.getKey())
          .exists();
      assertThat(Files.readString(committed))
          .as("deploy/%s is stale; regenerate with -Dkvcache.golden.write=true", f.getKey())
          .isEqualTo(f.getValue());
    }
    try (Stream<Path> walk =
        Stream.concat(
            Files.walk(DEPLOY.resolve("kustomize")), Files.walk(DEPLOY.resolve("helm")))) {
      List<String> present =
          walk.filter(Files::isRegularFile)
              .map(p -> DEPLOY.relativize(p).toString().replace(File.separatorChar, '/'))
              .toList();
      assertThat(files.keySet()).as("files nothing generates any more").containsAll(present);
    }
  }

  static List<HasMetadata> kustomize(String overlay) throws Exception {
    assumeTrue(onPath("kubectl"), "kubectl is not on the PATH; it renders the kustomize overlays");
    Process p =
        new ProcessBuilder(
                "kubectl", "kustomize", DEPLOY.resolve("kustomize/" + overlay).toString())
            .redirectErrorStream(true)
            .start();
    String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
    assertThat(p.waitFor(60, TimeUnit.SECONDS)).isTrue();
    assertThat(p.exitValue()).as(out).isZero();
    List<HasMetadata> objects = new ArrayList<>();
    for (String doc : out.split("(?m)^---$")) {
      if (!doc.isBlank()) {
        objects.add(KvCacheSerialization.create().unmarshal(doc));
      }
    }
    return objects;
  }

  static boolean onPath(String command) {
    return Stream.of(System.getenv().getOrDefault("PATH", "").split(File.pathSeparator))
        .anyMatch(d -> Files.isExecutable(Path.of(d, command)));
  }

  static Deployment operator(List<HasMetadata> objects) {
    return objects.stream()
        .filter(Deployment.class::isInstance)
        .map(Deployment.class::cast)
        .findFirst()
        .orElseThrow();
  }

  static List<String> kinds(List<HasMetadata> objects) {
    return objects.stream().map(HasMetadata::getKind).distinct().sorted().toList();
  }

  @Test
  void the_self_signed_overlay_runs_two_replicas_that_issue_their_certificate() throws Exception {
    List<HasMetadata> objects = kustomize("self-signed");
    assertThat(kinds(objects))
        .containsExactly(
            "ClusterRole",
            "ClusterRoleBinding",
            "CustomResourceDefinition",
            "Deployment",
            "MutatingWebhookConfiguration",
            "Namespace",
            "NetworkPolicy",
            "PodDisruptionBudget",
            "Role",
            "RoleBinding",
            "Service",
            "ServiceAccount",
            "ValidatingAdmissionPolicy",
            "ValidatingAdmissionPolicyBinding",
            "ValidatingWebhookConfiguration");
    Deployment d = operator(objects);
    assertThat(d.getMetadata().getNamespace()).isEqualTo("gpustack-system");
    assertThat(d.getSpec().getReplicas()).isEqualTo(2);
    assertThat(d.getSpec().getTemplate().getSpec().getContainers().get(0).getImage())
        .isEqualTo(Release.IMAGE);
    assertThat(d.getSpec().getTemplate().getSpec().getContainers().get(0).getArgs())
        .containsExactly(
            "run",
            "--webhook-listen=0.0.0.0:9443",
            "--health-listen=0.0.0.0:8080",
            "--self-signed-webhook-cert");
    assertThat(objects.stream().filter(o -> o.getKind().equals("CustomResourceDefinition")))
        .hasSize(5);
  }

  @Test
  void the_cert_manager_overlay_mounts_the_issued_secret_and_injects_the_ca() throws Exception {
    List<HasMetadata> objects = kustomize("cert-manager");
    assertThat(kinds(objects)).contains("Certificate", "Issuer");
    Deployment d = operator(objects);
    var container = d.getSpec().getTemplate().getSpec().getContainers().get(0);
    assertThat(container.getArgs())
        .contains("--tls-cert=/etc/kvcache/tls/tls.crt", "--tls-key=/etc/kvcache/tls/tls.key")
        .doesNotContain("--self-signed-webhook-cert");
    assertThat(container.getVolumeMounts())
        .extracting(m -> m.getMountPath())
        .containsExactlyInAnyOrder("/tmp", "/etc/kvcache/tls");
    assertThat(d.getSpec().getTemplate().getSpec().getVolumes())
        .anySatisfy(
            v -> assertThat(v.getSecret().getSecretName()).isEqualTo("kvcache-webhook-tls"));
    MutatingWebhookConfiguration mutating =
        objects.stream()
            .filter(MutatingWebhookConfiguration.class::isInstance)
            .map(MutatingWebhookConfiguration.class::cast)
            .findFirst()
            .orElseThrow();
    assertThat(mutating.getMetadata().getAnnotations())
        .containsEntry("cert-manager.io/inject-ca-from", "gpustack-system/kvcache-webhook");
    assertThat(objects)
        .filteredOn(o -> o.getKind().equals("ClusterRole"))
        .extracting(o -> o.getMetadata().getName())
        .containsExactlyInAnyOrder(
            "kvcache-operator", "kvcache-operator-workloads", "kvcache-operator-observe");
  }

  @Test
  void the_namespaced_overlay_grants_pods_and_their_proxy_in_the_listed_namespace_only()
      throws Exception {
    List<HasMetadata> objects = kustomize("namespaced");
    assertThat(objects)
        .filteredOn(o -> o.getKind().equals("ClusterRoleBinding"))
        .extracting(o -> o.getMetadata().getName())
        .containsExactlyInAnyOrder("kvcache-operator", "kvcache-operator-certificates");
    assertThat(objects)
        .filteredOn(o -> o.getKind().equals("RoleBinding"))
        .filteredOn(o -> "team-a".equals(o.getMetadata().getNamespace()))
        .extracting(o -> o.getMetadata().getName())
        .containsExactlyInAnyOrder("kvcache-operator-workloads", "kvcache-operator-observe");
    assertThat(operator(objects).getSpec().getTemplate().getSpec().getContainers().get(0).getArgs())
        .contains("--namespaces=team-a");
    assertThat(
            objects.stream()
                .filter(MutatingWebhookConfiguration.class::isInstance)
                .map(MutatingWebhookConfiguration.class::cast)
                .flatMap(m -> m.getWebhooks().stream())
                .filter(w -> w.getName().startsWith("pod-injection."))
                .flatMap(w -> w.getNamespaceSelector().getMatchExpressions().stream())
                .toList())
        .anySatisfy(e -> assertThat(e.getValues()).containsExactly("team-a"));
  }
}
