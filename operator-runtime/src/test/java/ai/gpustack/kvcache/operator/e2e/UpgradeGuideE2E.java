package ai.gpustack.kvcache.operator.e2e;

import static org.assertj.core.api.Assertions.assertThat;

import ai.gpustack.kvcache.operator.Shell;
import ai.gpustack.kvcache.operator.UpgradeGuideSteps;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Order;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

/**
 * Part 4: the user's commands on the real control plane. The upgrade guide's kubectl steps (the
 * same {@link UpgradeGuideSteps} the sandbox runs), then {@code kvcache preflight}, {@code verify},
 * {@code explain} and {@code migrate --apply} against the live cluster with the administrator's
 * kubeconfig, and the {@code kubectl kvcache} plugin.
 */
@ExtendWith(RealCluster.class)
@Order(4)
class UpgradeGuideE2E extends UpgradeGuideSteps {
  static final Duration PATIENCE = Duration.ofSeconds(90);
  static Shell kubectl;
  static String kvcache;

  @BeforeAll
  static void upgrade(Installation installation) throws Exception {
    kubectl = installation.admin("upgrade-guide");
    kvcache = "java -jar " + Path.of("target", "kvcache.jar").toAbsolutePath();
    Examples.apply(kubectl);
    // Stored before the upgrade: the dtype not owned yet, so its own flag is admitted.
    Examples.setting(kubectl, "false");
    Files.writeString(kubectl.home().resolve("stored.yaml"), STORED_OWN_FLAG);
    kubectl.kubectl("apply -f stored.yaml").ok();
    kubectl
        .kubectl(
            "wait --for=jsonpath={.status.phase}=Ready md/stored-own-flag -n team-a --timeout=90s")
        .ok();
    Examples.setting(kubectl, "true");
    kubectl
        .kubectl("wait --for=jsonpath={.status.phase}=Ready md --all -n team-a --timeout=90s")
        .ok();
  }

  @Override
  protected Shell shell() {
    return kubectl;
  }

  @Test
  @Order(20)
  void preflight_against_the_live_cluster_names_what_would_break() {
    Shell.Run preflight = kubectl.sh(kvcache + " preflight -o json");
    assertThat(preflight.exit()).as(preflight.err()).isEqualTo(1);
    assertThat(preflight.out())
        .contains("\"check\" : \"role-passes-flag\"", "ModelDeployment team-a/stored-own-flag")
        .contains("\"check\" : \"template-passes-flag\"", "Deployment team-a/injected-own-flag");
  }

  @Test
  @Order(21)
  void verify_reads_every_replica_and_says_the_kwok_engines_report_nothing() {
    Shell.Run verify = kubectl.sh(kvcache + " verify -A -o json");
    assertThat(verify.exit()).as(verify.err()).isZero();
    assertThat(verify.out())
        .contains("\"owner\" : \"ModelDeployment/chat-vllm\"", "\"argvDtype\" : \"bfloat16\"")
        .contains("\"owner\" : \"ModelDeployment/stored-own-flag\"", "\"argvDtype\" : \"fp8\"")
        .contains("\"verdict\" : \"not-reported\"")
        .doesNotContain("\"verdict\" : \"differs\"");
  }

  @Test
  @Order(22)
  void explain_tells_why_a_deployment_gets_its_dtype() {
    Shell.Run explain = kubectl.sh(kvcache + " explain md/chat-vllm -n team-a");
    assertThat(explain.exit()).as(explain.err()).isZero();
    assertThat(explain.out())
        .contains("ModelDeployment team-a/chat-vllm")
        .contains("--kv-cache-dtype bfloat16")
        .contains("status.phase: Ready");
  }

  @Test
  @Order(23)
  void the_kubectl_plugin_runs_verify_with_kubectls_namespace_flags() throws Exception {
    Path bin = Files.createDirectories(kubectl.home().resolve("bin"));
    Path plugin = bin.resolve("kubectl-kvcache");
    if (!Files.exists(plugin)) {
      Files.createSymbolicLink(plugin, Path.of("target", "kubectl-kvcache").toAbsolutePath());
    }
    Shell.Run run =
        kubectl.sh(
            "PATH="
                + bin
                + ":$PATH XDG_CACHE_HOME="
                + kubectl.home().resolve("cache")
                + " kubectl kvcache verify -n team-a");
    assertThat(run.exit()).as(run.err()).isZero();
    assertThat(run.out())
        .contains("ModelDeployment/chat-vllm in team-a (Binding chat, dtype bfloat16)");
  }

  @Test
  @Order(24)
  void migrate_moves_a_held_deployment_off_a_rejected_spelling_and_deletes_the_old_binding()
      throws Exception {
    Examples.setting(kubectl, "false");
    Files.writeString(
        kubectl.home().resolve("legacy.yaml"),
        """
        apiVersion: worker.gpustack.ai/v1
        kind: ModelDeployment
        metadata: {name: legacy-vllm, namespace: team-a}
        spec:
          model: {name: qwen/qwen3-8b}
          engine: {name: vLLM, version: "0.29.0"}
          kvCache: {poolRef: {name: legacy}}
          roles: [{name: server}]
        """);
    kubectl.kubectl("apply -f legacy.yaml").ok();
    kubectl
        .kubectl("wait --for=jsonpath={.status.phase}=Ready md/legacy-vllm -n team-a --timeout=90s")
        .ok();
    Examples.setting(kubectl, "true");
    assertThat(
            kubectl
                .until(
                    "kubectl get md legacy-vllm -n team-a -o"
                        + " jsonpath='{.status.conditions[?(@.type==\"DtypeAccepted\")].reason}'",
                    r -> r.out().equals("SpellingRejectedByEngine"),
                    PATIENCE)
                .out())
        .isEqualTo("SpellingRejectedByEngine");

    Shell.Run plan = kubectl.sh(kvcache + " migrate --binding team-a/legacy --dtype bfloat16");
    assertThat(plan.exit()).as(plan.out() + plan.err()).isZero();
    assertThat(kubectl.kubectl("get kvcpb legacy -n team-a -o name").ok().out())
        .as("the plan changes nothing")
        .isNotBlank();

    Shell.Run apply =
        kubectl.sh(
            kvcache + " migrate --binding team-a/legacy --dtype bfloat16 --apply --timeout 3m");
    assertThat(apply.exit()).as(apply.out() + apply.err()).isZero();
    assertThat(
            kubectl
                .kubectl("get md legacy-vllm -n team-a -o jsonpath={.spec.kvCache.poolRef.name}")
                .ok()
                .out())
        .isNotEqualTo("legacy");
    assertThat(kubectl.kubectl("get kvcpb legacy -n team-a").exit())
        .as("the old Binding is gone")
        .isEqualTo(1);
    assertThat(
            kubectl
                .kubectl(
                    "get pods -n team-a -l app.kubernetes.io/instance=legacy-vllm"
                        + " -o jsonpath='{.items[*].spec.containers[0].command}'")
                .ok()
                .out())
        .contains("\"--kv-cache-dtype\",\"bfloat16\"");
  }
}
