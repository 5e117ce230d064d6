package ai.gpustack.kvcache.operator.e2e;

import static org.assertj.core.api.Assertions.assertThat;

import ai.gpustack.kvcache.operator.Shell;
import java.nio.file.Files;
import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.MethodOrderer;
import org.junit.jupiter.api.Order;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestMethodOrder;
import org.junit.jupiter.api.extension.ExtendWith;

/**
 * Part 2: the sandbox's story on the real control plane, told with kubectl, the operator running as
 * its own process under the shipped ServiceAccount's token only. Replicas turn Ready through KWOK,
 * the Setting flips off and on with its rollouts, nothing listens behind a KWOK Pod so {@code
 * DtypeObserved} says Unreachable, a deletion passes the finalizer, and the operator's log holds no
 * Forbidden; then a verb taken out of the ClusterRole is refused by the authorizer.
 */
@ExtendWith(RealCluster.class)
@TestMethodOrder(MethodOrderer.OrderAnnotation.class)
@Order(2)
class OperatorE2E {
  static final Duration PATIENCE = Duration.ofSeconds(90);
  static Installation installed;
  static Shell kubectl;

  @BeforeAll
  static void applyExamples(Installation installation) {
    installed = installation;
    kubectl = installation.admin("operator");
    Examples.apply(kubectl);
  }

  static String commands(String deployment) {
    return kubectl
        .kubectl(
            "get pods -n team-a -l app.kubernetes.io/instance="
                + deployment
                + " -o jsonpath='{range .items[*]}{.spec.containers[0].command}{\"\\n\"}{end}'")
        .ok()
        .out();
  }

  @Test
  @Order(1)
  void every_deployment_is_accepted_and_its_replicas_turn_ready_through_kwok() {
    kubectl.kubectl("wait --for=condition=DtypeAccepted md --all -n team-a --timeout=90s").ok();
    Shell.Run ready =
        kubectl.until(
            "kubectl get md -n team-a -o"
                + " jsonpath='{range .items[*]}{.metadata.name}={.status.phase}{\"\\n\"}{end}'",
            r -> r.out().lines().allMatch(l -> l.endsWith("=Ready")) && !r.out().isBlank(),
            PATIENCE);
    assertThat(ready.out().lines().toList())
        .contains("chat-vllm=Ready", "chat-sglang=Ready", "fp8-vllm-0-4=Ready");
    assertThat(
            kubectl
                .kubectl(
                    "get pods -n team-a -l app.kubernetes.io/instance=chat-vllm"
                        + " -o jsonpath='{range .items[*]}{.status.phase}/{.status.conditions[?(@.type==\"Ready\")].status}/{.spec.nodeName}{\"\\n\"}{end}'")
                .ok()
                .out()
                .lines()
                .toList())
        .hasSize(2)
        .allMatch(l -> l.matches("Running/True/kwok-gpu-\\d"));
  }

  @Test
  @Order(2)
  void every_replicas_command_carries_the_pair_after_the_connector_and_before_extra_args() {
    assertThat(commands("chat-vllm").lines().toList())
        .hasSize(2)
        .allSatisfy(
            c ->
                assertThat(c)
                    .contains(
                        "\"--kv-transfer-config\",",
                        "\"--kv-cache-dtype\",\"bfloat16\",\"--max-model-len=8192\""));
    assertThat(commands("chat-sglang")).contains("\"--kv-cache-dtype\",\"bfloat16\"");
  }

  @Test
  @Order(3)
  void nothing_listens_behind_a_kwok_pod_so_the_observed_dtype_is_honestly_unreachable() {
    Shell.Run observed =
        kubectl.until(
            "kubectl get md chat-vllm -n team-a -o"
                + " jsonpath='{.status.conditions[?(@.type==\"DtypeObserved\")].reason}'",
            r -> r.out().equals("Unreachable"),
            PATIENCE);
    assertThat(observed.out()).isEqualTo("Unreachable");
    assertThat(
            kubectl
                .kubectl(
                    "get md chat-vllm -n team-a -o"
                        + " jsonpath='{.status.conditions[?(@.type==\"DtypeObserved\")].message}'")
                .ok()
                .out())
        .contains("replica chat-vllm-server-", "GET :8000/metrics: ", "read again with backoff");
  }

  @Test
  @Order(4)
  void the_setting_off_and_on_rolls_the_replicas_each_way() {
    String before =
        kubectl
            .kubectl(
                "get pods -n team-a -l app.kubernetes.io/instance=chat-vllm -o jsonpath={.items[*].metadata.uid}")
            .ok()
            .out();
    Examples.setting(kubectl, "false");
    assertThat(
            kubectl
                .until(
                    "kubectl get pods -n team-a -l app.kubernetes.io/instance=chat-vllm -o jsonpath='{range .items[*]}{.spec.containers[0].command}{\"\\n\"}{end}'",
                    r -> r.out().lines().count() == 2 && !r.out().contains("--kv-cache-dtype"),
                    PATIENCE)
                .out())
        .doesNotContain("--kv-cache-dtype")
        .contains("--kv-transfer-config");
    Examples.setting(kubectl, "true");
    assertThat(
            kubectl
                .until(
                    "kubectl get pods -n team-a -l app.kubernetes.io/instance=chat-vllm -o jsonpath='{range .items[*]}{.spec.containers[0].command}{\"\\n\"}{end}'",
                    r ->
                        r.out().lines().count() == 2
                            && r.out()
                                .lines()
                                .allMatch(l -> l.contains("\"--kv-cache-dtype\",\"bfloat16\"")),
                    PATIENCE)
                .out()
                .lines()
                .toList())
        .hasSize(2)
        .allMatch(l -> l.contains("\"--kv-cache-dtype\",\"bfloat16\""));
    String after =
        kubectl
            .kubectl(
                "get pods -n team-a -l app.kubernetes.io/instance=chat-vllm -o jsonpath={.items[*].metadata.uid}")
            .ok()
            .out();
    assertThat(List.of(after.split(" "))).doesNotContainAnyElementsOf(List.of(before.split(" ")));
    kubectl
        .kubectl("wait --for=jsonpath={.status.phase}=Ready md/chat-vllm -n team-a --timeout=90s")
        .ok();
  }

  @Test
  @Order(5)
  void a_deletion_passes_the_finalizer_once_its_replicas_are_gone() throws Exception {
    Files.writeString(
        kubectl.home().resolve("doomed.yaml"),
        """
        apiVersion: worker.gpustack.ai/v1
        kind: ModelDeployment
        metadata: {name: doomed, namespace: team-a}
        spec:
          model: {name: qwen/qwen3-8b}
          engine: {name: vLLM, version: "0.29.0"}
          kvCache: {poolRef: {name: chat}}
          roles: [{name: server, replicas: 2}]
        """);
    kubectl.kubectl("apply -f doomed.yaml").ok();
    kubectl
        .kubectl("wait --for=jsonpath={.status.phase}=Ready md/doomed -n team-a --timeout=90s")
        .ok();
    assertThat(
            kubectl
                .kubectl("get md doomed -n team-a -o jsonpath={.metadata.finalizers}")
                .ok()
                .out())
        .contains("worker.gpustack.ai/model-deployment");
    Shell.Run delete = kubectl.kubectl("delete md doomed -n team-a --timeout=90s").ok();
    assertThat(delete.out()).contains("\"doomed\" deleted");
    assertThat(
            kubectl
                .kubectl("get pods -n team-a -l app.kubernetes.io/instance=doomed -o name")
                .ok()
                .out())
        .isEmpty();
    assertThat(kubectl.kubectl("get kvcpb chat -n team-a -o jsonpath={.status.usedBy}").ok().out())
        .doesNotContain("doomed");
  }

  @Test
  @Order(6)
  void the_operators_log_holds_no_forbidden_under_the_shipped_rbac() {
    assertThat(installed.operator().alive()).isTrue();
    assertThat(installed.operator().forbidden()).isEmpty();
  }

  @Test
  @Order(7)
  void a_verb_taken_out_of_the_cluster_role_is_refused_by_the_authorizer_and_the_story_stalls()
      throws Exception {
    String role = kubectl.kubectl("get clusterrole kvcache-operator-workloads -o json").ok().out();
    // The shipped rule for Pods without create.
    Shell.Run cut =
        kubectl.sh(
            "kubectl get clusterrole kvcache-operator-workloads -o json | jq '(.rules[] |"
                + " select(.resources == [\"pods\"]) | .verbs) |= map(select(. != \"create\"))'"
                + " | kubectl replace -f -");
    cut.ok();
    try {
      assertThat(
              kubectl
                  .kubectl(
                      "auth can-i create pods -n team-a"
                          + " --as=system:serviceaccount:gpustack-system:kvcache-operator")
                  .out()
                  .strip())
          .isEqualTo("no");
      Files.writeString(
          kubectl.home().resolve("starved.yaml"),
          """
          apiVersion: worker.gpustack.ai/v1
          kind: ModelDeployment
          metadata: {name: starved, namespace: team-a}
          spec:
            model: {name: qwen/qwen3-8b}
            engine: {name: vLLM, version: "0.29.0"}
            kvCache: {poolRef: {name: chat}}
            roles: [{name: server}]
          """);
      kubectl.kubectl("apply -f starved.yaml").ok();
      OperatorProcess operator = installed.operator();
      long deadline = System.nanoTime() + PATIENCE.toNanos();
      while (operator.forbidden().isEmpty() && System.nanoTime() < deadline) {
        Thread.sleep(300);
      }
      assertThat(operator.forbidden())
          .as("the API server's authorizer refuses the operator's Pod create")
          .anyMatch(l -> l.contains("pods") && l.contains("forbidden"));
      assertThat(
              kubectl
                  .kubectl("get pods -n team-a -l app.kubernetes.io/instance=starved -o name")
                  .ok()
                  .out())
          .isEmpty();
    } finally {
      Files.writeString(kubectl.home().resolve("role.json"), role);
      kubectl.sh("jq 'del(.metadata.resourceVersion)' role.json | kubectl replace -f -").ok();
    }
    kubectl
        .kubectl("wait --for=jsonpath={.status.phase}=Ready md/starved -n team-a --timeout=120s")
        .ok();
    kubectl.kubectl("delete md starved -n team-a --timeout=90s").ok();
  }
}
