package ai.gpustack.kvcache.operator.cli;

import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import ai.gpustack.kvcache.resources.ModelDeployment;
import ai.gpustack.kvcache.spi.EngineRegistry;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.MethodOrderer;
import org.junit.jupiter.api.Order;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestMethodOrder;
import org.junit.jupiter.api.io.TempDir;

/**
 * Every kubectl command of the user's upgrade guide, run as written with this machine's kubectl
 * against the sandbox. Skipped, saying why, only where kubectl (or, for the one pipeline that uses
 * it, jq) is missing.
 */
@TestMethodOrder(MethodOrderer.OrderAnnotation.class)
class SandboxKubectlIT {
  @TempDir static Path dir;
  static Sandbox sandbox;
  static Path kubeconfig;

  @BeforeAll
  static void start() throws Exception {
    assumeTrue(
        onPath("kubectl"), "kubectl is not on the PATH; the upgrade guide's commands need it");
    sandbox = Sandbox.start(EngineRegistry.load(), 0, new PrintWriter(new StringWriter()));
    sandbox.applyExamples();
    // A deployment stored (and managed, so with its finalizer) before the upgrade, passing its own
    // flag: what the guide's jq filter finds.
    sandbox.server().admission(false);
    String stored =
        """
        apiVersion: worker.gpustack.ai/v1
        kind: ModelDeployment
        metadata: {name: stored-own-flag, namespace: team-a, finalizers: [worker.gpustack.ai/model-deployment]}
        spec:
          model: {name: m}
          engine: {name: vLLM}
          kvCache: {poolRef: {name: chat}}
          roles: [{name: server, extraArgs: ["--kv_cache_dtype=fp8"]}, {name: router, command: [router, --kv-cache-dtype, x]}]
        """;
    sandbox
        .client()
        .resource(
            sandbox.client().getKubernetesSerialization().unmarshal(stored, ModelDeployment.class))
        .create();
    sandbox.server().admission(true);
    assertThat(sandbox.awaitSettled()).isTrue();
    kubeconfig = dir.resolve("sandbox.kubeconfig");
    Files.writeString(kubeconfig, sandbox.server().kubeconfig());
  }

  @AfterAll
  static void stop() {
    if (sandbox != null) {
      sandbox.close();
    }
  }

  static boolean onPath(String program) {
    try {
      return new ProcessBuilder("sh", "-c", "command -v " + program).start().waitFor() == 0;
    } catch (Exception e) {
      return false;
    }
  }

  record Run(int exit, String out, String err) {}

  static Run sh(String command) throws Exception {
    ProcessBuilder pb = new ProcessBuilder("bash", "-c", command);
    pb.environment().put("KUBECONFIG", kubeconfig.toString());
    pb.environment().put("HOME", dir.toString());
    Process p = pb.start();
    String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
    String err = new String(p.getErrorStream().readAllBytes(), StandardCharsets.UTF_8);
    assertThat(p.waitFor(60, TimeUnit.SECONDS)).isTrue();
    return new Run(p.exitValue(), out, err);
  }

  @Test
  @Order(1)
  void check_every_binding_lists_each_bindings_dtype() throws Exception {
    Run r =
        sh(
            "kubectl get kvcachepoolbindings -A \\\n  -o custom-columns=NAMESPACE:.metadata.namespace,NAME:.metadata.name,DTYPE:.spec.domain.dtype");
    assertThat(r.exit()).as(r.err()).isZero();
    assertThat(r.out().lines().map(l -> String.join(" ", l.trim().split("\\s+"))).toList())
        .contains("NAMESPACE NAME DTYPE", "team-a chat bfloat16", "team-a legacy bf16");
  }

  @Test
  @Order(2)
  void the_printer_columns_show_pool_domain_block_size_dtype_phase_and_age() throws Exception {
    Run r = sh("kubectl get kvcpb -A");
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
    assumeTrue(onPath("jq"), "jq is not on the PATH; the guide's filter needs it");
    Run r =
        sh(
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
    Run r =
        sh(
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
    Run r =
        sh("kubectl -n team-a get pod injected-vllm-0 -o jsonpath='{.spec.containers[0].args}'");
    assertThat(r.exit()).as(r.err()).isZero();
    assertThat(r.out()).endsWith("\"--kv-cache-dtype\",\"bfloat16\"]");
  }

  @Test
  @Order(6)
  void turning_the_setting_off_renders_nothing_and_recreates_the_replicas() throws Exception {
    Run r =
        sh(
            "kubectl -n gpustack-system patch setting model-deployment-kv-cache-dtype-owned \\\n  --type merge -p '{\"spec\":{\"value\":\"false\"}}'");
    assertThat(r.exit()).as(r.err()).isZero();
    assertThat(r.out())
        .contains("setting.gpustack.ai/model-deployment-kv-cache-dtype-owned patched");
    long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(60);
    Run verify;
    do {
      Thread.sleep(500);
      verify =
          sh(
              "kubectl -n team-a get pods -l app.kubernetes.io/instance=chat-vllm -o jsonpath='{range .items[*]}{.spec.containers[0].command}{\"\\n\"}{end}'");
    } while (verify.out().contains("--kv-cache-dtype") && System.nanoTime() < deadline);
    assertThat(verify.out()).doesNotContain("--kv-cache-dtype").contains("--kv-transfer-config");
    Run value =
        sh(
            "kubectl -n gpustack-system get setting model-deployment-kv-cache-dtype-owned -o jsonpath='{.status.value}'");
    assertThat(value.out()).isEqualTo("false");
    List<String> back =
        List.of(
            "kubectl -n gpustack-system patch setting model-deployment-kv-cache-dtype-owned --type merge -p '{\"spec\":{\"value\":\"true\"}}'");
    assertThat(sh(back.get(0)).exit()).isZero();
  }

  @Test
  @Order(8)
  void the_conditions_say_the_dtype_was_accepted() throws Exception {
    long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(60);
    Run r;
    do {
      r =
          sh(
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
    Run dump =
        sh(
            "kubectl get kvcachepoolbindings,kvcachepools,kvcachebackends,modeldeployments,deployments,statefulsets,jobs,cronjobs,pods -A -o yaml > "
                + dir.resolve("cluster.yaml"));
    assertThat(dump.exit()).as(dump.err()).isZero();
    Run preflight =
        sh(
            "java -jar "
                + Path.of("target", "kvcache.jar").toAbsolutePath()
                + " preflight -f "
                + dir.resolve("cluster.yaml")
                + " -o json");
    assertThat(preflight.exit()).as(preflight.out() + preflight.err()).isEqualTo(1);
    assertThat(preflight.out())
        .contains("\"check\" : \"role-passes-flag\"", "ModelDeployment team-a/stored-own-flag")
        .contains("\"check\" : \"template-passes-flag\"", "Deployment team-a/injected-own-flag");
  }

  @Test
  @Order(7)
  void a_setting_value_that_is_not_a_boolean_is_refused() throws Exception {
    Run r =
        sh(
            "kubectl -n gpustack-system patch setting model-deployment-kv-cache-dtype-owned --type merge -p '{\"spec\":{\"value\":\"yes\"}}'");
    assertThat(r.exit()).isNotZero();
    assertThat(r.err()).contains("must be a boolean");
  }
}
