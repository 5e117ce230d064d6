package ai.gpustack.kvcache.operator.e2e;

import static org.assertj.core.api.Assertions.assertThat;

import ai.gpustack.kvcache.operator.Shell;
import java.nio.file.Files;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.MethodOrderer;
import org.junit.jupiter.api.Order;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestMethodOrder;
import org.junit.jupiter.api.extension.ExtendWith;

/**
 * Part 5: GitOps and the end of life. Every example applied with server-side apply, as Argo CD and
 * Flux apply, into a namespace of its own, then re-applied with a change, the operator's finalizer
 * and status kept; a claim someone removes from a Binding's usedBy written again; a namespace
 * deleted with deployments in it finishes; and last, the uninstall exactly as docs/operating.md
 * writes it leaves no object, finalizer or webhook configuration behind. Runs after every other
 * suite: it takes the installation away.
 */
@ExtendWith(RealCluster.class)
@TestMethodOrder(MethodOrderer.OrderAnnotation.class)
@Order(100)
class LifecycleE2E {
  static final String NS = "gitops-e2e";
  static final Duration PATIENCE = Duration.ofSeconds(120);
  static Installation installed;
  static Shell kubectl;

  @BeforeAll
  static void start(Installation installation) throws Exception {
    installed = installation;
    kubectl = installation.admin("lifecycle");
    Files.createDirectories(kubectl.home().resolve("gitops"));
    Files.createDirectories(kubectl.home().resolve("gitops-changed"));
    // examples/sandbox in a namespace of its own: a domain is claimed per backend, and team-a
    // holds the examples' names.
    String renamed =
        """
        apiVersion: kustomize.config.k8s.io/v1beta1
        kind: Kustomization
        namespace: %s
        resources: [%s]
        patches:
        """
            .formatted(
                NS,
                kubectl
                    .home()
                    .resolve("gitops")
                    .relativize(Installation.REPO.resolve("examples/sandbox")));
    // The domains renamed and the ceilings made small: the pool's total bounds the sum of its
    // Bindings' ceilings, and team-a's already hold most of it.
    for (String binding : List.of("chat", "fp8", "legacy")) {
      renamed +=
          """
            - target: {kind: KVCachePoolBinding, name: %1$s}
              patch: '[{"op": "replace", "path": "/spec/domain/name", "value": "gitops-%1$s"},
                       {"op": "replace", "path": "/spec/quota/ceiling", "value": "100Gi"}]'
          """
              .formatted(binding);
    }
    Files.writeString(kubectl.home().resolve("gitops/kustomization.yaml"), renamed);
    Files.writeString(
        kubectl.home().resolve("gitops-changed/kustomization.yaml"),
        """
        apiVersion: kustomize.config.k8s.io/v1beta1
        kind: Kustomization
        resources: [../gitops]
        patches:
          - target: {kind: ModelDeployment, name: chat-vllm}
            patch: '[{"op": "replace", "path": "/spec/roles/0/replicas", "value": 3}]'
        """);
  }

  @Test
  @Order(1)
  void every_example_applies_server_side_and_settles() {
    Shell.Run apply =
        kubectl.sh("kubectl kustomize gitops | kubectl apply --server-side -f -").ok();
    assertThat(apply.out())
        .contains(
            "namespace/" + NS + " serverside-applied",
            "kvcachepoolbinding.worker.gpustack.ai/chat serverside-applied",
            "modeldeployment.worker.gpustack.ai/chat-vllm serverside-applied",
            "deployment.apps/injected-vllm serverside-applied");
    kubectl
        .kubectl("wait --for=jsonpath={.status.phase}=Ready md --all -n " + NS + " --timeout=120s")
        .ok();
  }

  @Test
  @Order(2)
  void a_changed_reapply_changes_only_its_field_and_keeps_the_operators_finalizer_and_status() {
    Shell.Run again =
        kubectl.sh("kubectl kustomize gitops-changed | kubectl apply --server-side -f -").ok();
    assertThat(again.out())
        .contains("modeldeployment.worker.gpustack.ai/chat-vllm serverside-applied");
    Shell.Run pods =
        kubectl.until(
            "kubectl get pods -n " + NS + " -l app.kubernetes.io/instance=chat-vllm -o name",
            r -> r.out().lines().count() == 3,
            PATIENCE);
    assertThat(pods.out().lines()).hasSize(3);
    String md =
        kubectl
            .kubectl(
                "get md chat-vllm -n "
                    + NS
                    + " -o jsonpath='{.metadata.finalizers}|{.status.phase}|{range .metadata.managedFields[*]}{.manager}:{.operation}:{.subresource} {end}'")
            .ok()
            .out();
    assertThat(md)
        .startsWith("[\"worker.gpustack.ai/model-deployment\"]|")
        .contains("kubectl:Apply:")
        .containsPattern("[^ ]+:Update:status");
  }

  @Test
  @Order(3)
  void a_claim_removed_from_a_bindings_used_by_is_written_again() {
    String holders =
        "kubectl get kvcachepoolbinding chat -n " + NS + " -o jsonpath='{.status.usedBy[*].name}'";
    List<String> names = List.of(kubectl.sh(holders).ok().out().strip().split(" "));
    assertThat(names).contains("chat-vllm");
    String at = "/status/usedBy/" + names.indexOf("chat-vllm");
    Shell.Run removed =
        kubectl.kubectl(
            "patch kvcachepoolbinding chat -n "
                + NS
                + " --subresource=status --type=json -p '[{\"op\": \"test\", \"path\": \""
                + at
                + "/name\", \"value\": \"chat-vllm\"}, {\"op\": \"remove\", \"path\": \""
                + at
                + "\"}]'");
    assertThat(removed.ok().out()).endsWith("chat patched\n");
    assertThat(kubectl.until(holders, r -> r.out().contains("chat-vllm"), PATIENCE).out())
        .contains("chat-vllm");
  }

  @Test
  @Order(4)
  void a_namespace_deleted_with_deployments_and_their_binding_in_it_finishes() {
    kubectl.kubectl("delete namespace " + NS + " --timeout=180s").ok();
    assertThat(kubectl.kubectl("get namespace " + NS).exit()).isEqualTo(1);
  }

  @Test
  @Order(5)
  void the_uninstall_in_operating_md_leaves_nothing_behind() throws Exception {
    List<String> steps = uninstallSteps();
    assertThat(steps).isNotEmpty();
    for (String step : steps) {
      Shell.Run run = kubectl.sh("cd " + Installation.REPO + " && " + step);
      assertThat(run.exit()).as("%s: %s", step, run.err()).isZero();
      if (step.startsWith("kubectl get pods -A -l kvcache.gpustack.ai/inject=true")) {
        // What the guide leaves to the reader: the owners of what it listed, then bare Pods.
        kubectl
            .sh(
                "kubectl get deploy -A -o json | jq -r '.items[] | select(.spec.template.metadata.labels[\"kvcache.gpustack.ai/inject\"] == \"true\") | \"-n \\(.metadata.namespace) \\(.metadata.name)\"'"
                    + " | while read -r ns n name; do kubectl delete deploy $ns $n $name --wait; done")
            .ok();
        kubectl.kubectl("delete pods -A -l kvcache.gpustack.ai/inject=true --wait").ok();
      }
    }
    installed.stopOperator();
    kubectl.until("kubectl get namespace gpustack-system", r -> r.exit() == 1, PATIENCE);
    assertThat(kubectl.kubectl("get namespace gpustack-system").exit()).isEqualTo(1);
    assertThat(kubectl.kubectl("get crd -o name").ok().out()).doesNotContain("gpustack.ai");
    assertThat(
            kubectl
                .kubectl(
                    "get mutatingwebhookconfiguration,validatingwebhookconfiguration,clusterrole,clusterrolebinding -o name")
                .ok()
                .out())
        .doesNotContain("kvcache");
  }

  /** The command lines of the first bash block under "## Uninstall" in docs/operating.md. */
  static List<String> uninstallSteps() throws Exception {
    List<String> lines = Files.readAllLines(Installation.REPO.resolve("docs/operating.md"));
    int at = lines.indexOf("## Uninstall");
    List<String> steps = new ArrayList<>();
    boolean inBlock = false;
    for (String line : lines.subList(at, lines.size())) {
      if (line.startsWith("```")) {
        if (inBlock) {
          break;
        }
        inBlock = true;
        continue;
      }
      if (inBlock && !line.isBlank() && !line.strip().startsWith("#")) {
        steps.add(line.replaceFirst("\\s+#.*$", ""));
      }
    }
    return steps;
  }
}
