package ai.gpustack.kvcache.operator.e2e;

import static org.assertj.core.api.Assertions.assertThat;

import ai.gpustack.kvcache.operator.Shell;
import java.nio.file.Files;
import java.time.Duration;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.MethodOrderer;
import org.junit.jupiter.api.Order;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestMethodOrder;
import org.junit.jupiter.api.extension.ExtendWith;

/**
 * Least privilege by scope on the real API server: the {@code namespaced} overlay grants Pods,
 * Events and the Pod proxy in team-a only, and {@code kvcache run --namespaces team-a} runs
 * team-a's deployments under it with no Forbidden, leaving another namespace's alone; without the
 * observe role the operator does not read the engines and says so in DtypeObserved.
 */
@ExtendWith(RealCluster.class)
@TestMethodOrder(MethodOrderer.OrderAnnotation.class)
@Order(50)
class ScopeE2E {
  static final Duration PATIENCE = Duration.ofSeconds(90);
  static final String AS_OPERATOR = "--as=system:serviceaccount:gpustack-system:kvcache-operator";
  static Installation installed;
  static Shell kubectl;

  @BeforeAll
  static void scope(Installation installation) throws Exception {
    installed = installation;
    kubectl = installation.admin("scope");
    Examples.apply(kubectl);
    installed.stopOperator();
    kubectl
        .kubectl(
            "delete clusterrolebinding kvcache-operator-workloads kvcache-operator-observe"
                + " --ignore-not-found")
        .ok();
    installed.apply("deploy/kustomize/namespaced");
    installed.startOperator("--namespaces", "team-a");
    Files.writeString(
        kubectl.home().resolve("mds.yaml"),
        """
        apiVersion: v1
        kind: Namespace
        metadata: {name: scope-outside}
        ---
        apiVersion: worker.gpustack.ai/v1
        kind: ModelDeployment
        metadata: {name: scoped, namespace: team-a}
        spec:
          model: {name: qwen/qwen3-8b}
          engine: {name: vLLM, version: "0.29.0"}
          kvCache: {poolRef: {name: chat}}
          roles: [{name: server}]
        ---
        apiVersion: worker.gpustack.ai/v1
        kind: ModelDeployment
        metadata: {name: outside, namespace: scope-outside}
        spec:
          model: {name: qwen/qwen3-8b}
          engine: {name: vLLM, version: "0.29.0"}
          roles: [{name: server}]
        """);
    kubectl.kubectl("apply -f mds.yaml").ok();
  }

  @AfterAll
  static void unscope() {
    installed.stopOperator();
    kubectl
        .kubectl(
            "delete rolebinding kvcache-operator-workloads kvcache-operator-observe -n team-a"
                + " --ignore-not-found")
        .ok();
    kubectl.kubectl("delete namespace scope-outside --wait=false").ok();
    installed.apply("deploy/kustomize/self-signed");
    installed.startOperator();
  }

  @Test
  @Order(1)
  void the_authorizer_grants_pods_in_the_listed_namespace_only() {
    assertThat(kubectl.kubectl("auth can-i create pods -n team-a " + AS_OPERATOR).out().strip())
        .isEqualTo("yes");
    assertThat(
            kubectl.kubectl("auth can-i create pods -n scope-outside " + AS_OPERATOR).out().strip())
        .isEqualTo("no");
    assertThat(
            kubectl
                .kubectl("auth can-i get pods/proxy -n scope-outside " + AS_OPERATOR)
                .out()
                .strip())
        .isEqualTo("no");
  }

  @Test
  @Order(2)
  void a_listed_namespaces_deployment_runs_and_another_is_left_alone_with_no_forbidden() {
    kubectl
        .kubectl("wait --for=jsonpath={.status.phase}=Ready md/scoped -n team-a --timeout=90s")
        .ok();
    assertThat(
            kubectl
                .until(
                    "kubectl get md scoped -n team-a -o"
                        + " jsonpath='{.status.conditions[?(@.type==\"DtypeObserved\")].reason}'",
                    r -> r.out().equals("Unreachable"),
                    PATIENCE)
                .out())
        .as("observed: the observe role is bound in team-a")
        .isEqualTo("Unreachable");
    assertThat(
            kubectl
                .kubectl(
                    "get md outside -n scope-outside -o"
                        + " jsonpath={.metadata.finalizers}{.status.phase}")
                .ok()
                .out())
        .as("not reconciled: no finalizer, no status")
        .isEmpty();
    assertThat(kubectl.kubectl("get pods -n scope-outside -o name").ok().out()).isEmpty();
    assertThat(installed.operator().forbidden()).isEmpty();
  }

  @Test
  @Order(3)
  void without_the_observe_role_the_operator_says_in_dtype_observed_that_it_does_not_observe() {
    installed.stopOperator();
    kubectl.kubectl("delete rolebinding kvcache-operator-observe -n team-a").ok();
    installed.startOperator("--namespaces", "team-a");
    Shell.Run condition =
        kubectl.until(
            "kubectl get md scoped -n team-a -o"
                + " jsonpath='{.status.conditions[?(@.type==\"DtypeObserved\")].reason}:"
                + "{.status.conditions[?(@.type==\"DtypeObserved\")].message}'",
            r -> r.out().startsWith("NotObserved:"),
            PATIENCE);
    assertThat(condition.out())
        .isEqualTo(
            "NotObserved:its ServiceAccount may not get pods/proxy in team-a: bind the ClusterRole"
                + " kvcache-operator-observe to observe the engines");
    assertThat(installed.operator().forbidden()).isEmpty();
  }
}
