package ai.gpustack.kvcache.operator;

import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.MethodOrderer;
import org.junit.jupiter.api.Order;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestMethodOrder;

/**
 * Every kubectl command of the user's upgrade guide, run as written with this machine's kubectl,
 * against a cluster a subclass brings (the sandbox, the real control plane): the examples applied,
 * and {@code team-a/stored-own-flag} stored before the upgrade (so with its finalizer), its server
 * role passing {@code --kv_cache_dtype=fp8} and its router role owning its command.
 */
@TestMethodOrder(MethodOrderer.OrderAnnotation.class)
public abstract class UpgradeGuideSteps {
  /** The deployment stored before the upgrade that the guide's filter finds. */
  public static final String STORED_OWN_FLAG =
      """
      apiVersion: worker.gpustack.ai/v1
      kind: ModelDeployment
      metadata: {name: stored-own-flag, namespace: team-a}
      spec:
        model: {name: m}
        engine: {name: vLLM}
        kvCache: {poolRef: {name: chat}}
        roles: [{name: server, extraArgs: ["--kv_cache_dtype=fp8"]}, {name: router, command: [router, --kv-cache-dtype, x]}]
      """;

  /** kubectl against the cluster, from a folder of the test's own. */
  protected abstract Shell shell();

  @Test
  @Order(1)
  void check_every_binding_lists_each_bindings_dtype() throws Exception {
    Shell.Run r =
        shell()
            .sh(
                "kubectl get kvcachepoolbindings -A \\\n  -o custom-columns=NAMESPACE:.metadata.namespace,NAME:.metadata.name,DTYPE:.spec.domain.dtype");
    assertThat(r.exit()).as(r.err()).isZero();
    assertThat(r.out().lines().map(l -> String.join(" ", l.trim().split("\\s+"))).toList())
        .contains("NAMESPACE NAME DTYPE", "team-a chat bfloat16", "team-a legacy bf16");
  }

  @Test
  @Order(2)
  void the_printer_columns_show_pool_domain_block_size_dtype_phase_and_age() throws Exception {
    Shell.Run r = shell().sh("kubectl get kvcpb -A");
    assertThat(r.exit()).as(r.err()).isZero();
    assertThat(r.out().lines().findFirst().orElseThrow().split("\\s+"))
        .containsExactly(
            "NAMESPACE", "NAME", "POOL", "DOMAIN", "BLOCKSIZE", "DTYPE", "PHASE", "AGE");
    assertThat(r.out())
        .containsPattern(
            "team-a\\s+chat\\s+shared\\s+team-a-chat\\s+16\\s+bfloat16\\s+Ready\\s+\\d+s");
  }

  @Test
  @Order(3)
  void find_roles_that_pass_the_flag_themselves() throws Exception {
    assumeTrue(Shell.onPath("jq"), "jq is not on the PATH; the guide's filter needs it");
    Shell.Run r =
        shell()
            .sh(
                """
        kubectl get modeldeployments -A -o json | jq -r '.items[]
          | select(.spec.kvCache != null) | . as $md | .spec.roles[]
          | select((.command // []) == [] and ((.extraArgs // []) | any(test("^--kv[-_]cache[-_]dtype"))))
          | "\\($md.metadata.namespace)/\\($md.metadata.name) role \\(.name)"'
        """);
    assertThat(r.exit()).as(r.err()).isZero();
    assertThat(r.out().lines().toList()).containsExactly("team-a/stored-own-flag role server");
  }

  @Test
  @Order(4)
  void verify_every_replica_carries_the_bindings_dtype_as_two_command_entries() throws Exception {
    Shell.Run r =
        shell()
            .sh(
                """
        kubectl -n team-a get pods -l app.kubernetes.io/instance=chat-vllm \\
          -o jsonpath='{range .items[*]}{.metadata.name}{"\\t"}{.spec.containers[0].command}{"\\n"}{end}' \\
          | grep -o -- '--kv-cache-dtype","[^"]*'
        """);
    assertThat(r.exit()).as(r.err()).isZero();
    assertThat(r.out().lines().toList())
        .containsExactly("--kv-cache-dtype\",\"bfloat16", "--kv-cache-dtype\",\"bfloat16");
  }

  @Test
  @Order(5)
  void an_injected_pod_carries_the_pair_at_the_end_of_its_args() throws Exception {
    Shell.Run r =
        shell()
            .sh(
                "kubectl -n team-a get pods -l app=injected-vllm -o jsonpath='{.items[0].spec.containers[0].args}'");
    assertThat(r.exit()).as(r.err()).isZero();
    assertThat(r.out()).endsWith("\"--kv-cache-dtype\",\"bfloat16\"]");
  }

  @Test
  @Order(6)
  void turning_the_setting_off_renders_nothing_and_recreates_the_replicas() throws Exception {
    Shell.Run r =
        shell()
            .sh(
                "kubectl -n gpustack-system patch setting model-deployment-kv-cache-dtype-owned \\\n  --type merge -p '{\"spec\":{\"value\":\"false\"}}'");
    assertThat(r.exit()).as(r.err()).isZero();
    assertThat(r.out())
        .contains("setting.gpustack.ai/model-deployment-kv-cache-dtype-owned patched");
    long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(60);
    Shell.Run verify;
    do {
      Thread.sleep(500);
      verify =
          shell()
              .sh(
                  "kubectl -n team-a get pods -l app.kubernetes.io/instance=chat-vllm -o jsonpath='{range .items[*]}{.spec.containers[0].command}{\"\\n\"}{end}'");
    } while (verify.out().contains("--kv-cache-dtype") && System.nanoTime() < deadline);
    assertThat(verify.out()).doesNotContain("--kv-cache-dtype").contains("--kv-transfer-config");
    Shell.Run value =
        shell()
            .sh(
                "kubectl -n gpustack-system get setting model-deployment-kv-cache-dtype-owned -o jsonpath='{.status.value}'");
    assertThat(value.out()).isEqualTo("false");
    List<String> back =
        List.of(
            "kubectl -n gpustack-system patch setting model-deployment-kv-cache-dtype-owned --type merge -p '{\"spec\":{\"value\":\"true\"}}'");
    assertThat(shell().sh(back.get(0)).exit()).isZero();
  }

  @Test
  @Order(8)
  void the_conditions_say_the_dtype_was_accepted() throws Exception {
    long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(60);
    Shell.Run r;
    do {
      r =
          shell()
              .sh(
                  """
          kubectl -n team-a get modeldeployment chat-vllm \
            -o jsonpath='{range .status.conditions[*]}{.type}={.status} {.reason}{"\\n"}{end}'
          """);
      Thread.sleep(200);
    } while (!r.out().contains("DtypeAccepted=True") && System.nanoTime() < deadline);
    assertThat(r.exit()).as(r.err()).isZero();
    assertThat(r.out().lines().map(l -> l.split(" ")[0]).toList())
        .contains("DomainRegistered=True", "CacheAttached=True", "DtypeAccepted=True");
  }

  @Test
  @Order(9)
  void a_dump_of_the_cluster_is_what_preflight_reads() throws Exception {
    Shell.Run dump =
        shell()
            .sh(
                "kubectl get kvcachepoolbindings,kvcachepools,kvcachebackends,modeldeployments,deployments,statefulsets,jobs,cronjobs,pods -A -o yaml > "
                    + shell().home().resolve("cluster.yaml"));
    assertThat(dump.exit()).as(dump.err()).isZero();
    Shell.Run preflight =
        shell()
            .sh(
                "java -jar "
                    + Path.of("target", "kvcache.jar").toAbsolutePath()
                    + " preflight -f "
                    + shell().home().resolve("cluster.yaml")
                    + " -o json");
    assertThat(preflight.exit()).as(preflight.out() + preflight.err()).isEqualTo(1);
    assertThat(preflight.out())
        .contains("\"check\" : \"role-passes-flag\"", "ModelDeployment team-a/stored-own-flag")
        .contains("\"check\" : \"template-passes-flag\"", "Deployment team-a/injected-own-flag");
  }

  @Test
  @Order(7)
  void a_setting_value_that_is_not_a_boolean_is_refused() throws Exception {
    Shell.Run r =
        shell()
            .sh(
                "kubectl -n gpustack-system patch setting model-deployment-kv-cache-dtype-owned --type merge -p '{\"spec\":{\"value\":\"yes\"}}'");
    assertThat(r.exit()).isNotZero();
    assertThat(r.err()).contains("must be a boolean");
  }
}
