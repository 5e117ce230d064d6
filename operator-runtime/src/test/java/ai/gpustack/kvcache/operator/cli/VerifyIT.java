package ai.gpustack.kvcache.operator.cli;

import static org.assertj.core.api.Assertions.assertThat;

import ai.gpustack.kvcache.operator.TestObjects;
import ai.gpustack.kvcache.resources.ModelDeployment;
import ai.gpustack.kvcache.spi.EngineRegistry;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.MethodOrderer;
import org.junit.jupiter.api.Order;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestMethodOrder;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@code kvcache verify} against the sandbox, through the Pod proxy, on the upgrade the guide
 * describes: with the Setting off a vLLM deployment on the chat Binding is created passing its own
 * {@code --kv-cache-dtype fp8}; with it back on, its replicas run fp8 (their own flag comes last)
 * while the Binding declares bfloat16.
 */
@TestMethodOrder(MethodOrderer.OrderAnnotation.class)
class VerifyIT {
  @TempDir static Path dir;
  static Sandbox sandbox;
  static Path kubeconfig;

  @BeforeAll
  static void start() throws Exception {
    sandbox = Sandbox.start(EngineRegistry.load(), 0, new PrintWriter(new StringWriter()));
    sandbox.applyExamples();
    assertThat(sandbox.awaitSettled()).isTrue();
    sandbox.flip(false);
    String own =
        """
        apiVersion: worker.gpustack.ai/v1
        kind: ModelDeployment
        metadata: {name: own-fp8, namespace: team-a}
        spec:
          model: {name: qwen/qwen3-8b}
          engine: {name: vLLM}
          kvCache: {poolRef: {name: chat}}
          roles: [{name: server, replicas: 2, extraArgs: ["--kv-cache-dtype", "fp8"]}]
        """;
    sandbox
        .client()
        .resource(
            sandbox.client().getKubernetesSerialization().unmarshal(own, ModelDeployment.class))
        .create();
    // Its replicas too: verification reads what the running engines report.
    TestObjects.awaitTaken(sandbox.client(), "team-a", "own-fp8", 2);
    sandbox.flip(true);
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

  static List<JsonNode> replicas(CliRun run, String owner) throws Exception {
    List<JsonNode> out = new ArrayList<>();
    new ObjectMapper()
        .readTree(run.out())
        .path("replicas")
        .forEach(
            r -> {
              if (r.path("owner").asText().equals(owner)) {
                out.add(r);
              }
            });
    return out;
  }

  @Test
  @Order(1)
  void a_role_keeping_its_own_flag_differs_and_the_others_match() throws Exception {
    CliRun verify = CliRun.of("verify", "-A", "-o", "json", "--kubeconfig", kubeconfig.toString());
    assertThat(verify.exitCode()).as(verify.err()).isEqualTo(1);
    List<JsonNode> own = replicas(verify, "ModelDeployment/own-fp8");
    assertThat(own).hasSize(2);
    for (JsonNode r : own) {
      assertThat(r.path("verdict").asText()).isEqualTo("differs");
      assertThat(r.path("observedDtype").asText()).isEqualTo("fp8");
      assertThat(r.path("argvDtype").asText()).isEqualTo("fp8");
      assertThat(r.path("bindingDtype").asText()).isEqualTo("bfloat16");
      assertThat(r.path("source").asText()).isEqualTo("GET :8000/metrics");
    }
    List<JsonNode> chat = replicas(verify, "ModelDeployment/chat-vllm");
    assertThat(chat).hasSize(2);
    assertThat(chat)
        .allSatisfy(
            r -> {
              assertThat(r.path("verdict").asText()).isEqualTo("matches");
              assertThat(r.path("observedDtype").asText()).isEqualTo("bfloat16");
            });
    // SGLang reports through its server info; an injected Pod is verified too.
    assertThat(replicas(verify, "ModelDeployment/chat-sglang"))
        .singleElement()
        .satisfies(r -> assertThat(r.path("source").asText()).isEqualTo("GET :30000/server_info"));
    assertThat(replicas(verify, "Deployment/injected-vllm"))
        .singleElement()
        .satisfies(r -> assertThat(r.path("verdict").asText()).isEqualTo("matches"));
  }

  @Test
  @Order(2)
  void the_table_groups_replicas_by_owner() throws Exception {
    CliRun verify = CliRun.of("verify", "-n", "team-a", "--kubeconfig", kubeconfig.toString());
    assertThat(verify.exitCode()).isEqualTo(1);
    assertThat(verify.out())
        .contains("ModelDeployment/own-fp8 in team-a (Binding chat, dtype bfloat16)")
        .containsPattern("own-fp8-server-0 +vLLM +fp8 +fp8 +differs +GET :8000/metrics")
        .contains(" differ, ");
    assertThat(CliRun.of("verify", "-n", "team-b", "--kubeconfig", kubeconfig.toString()).out())
        .contains("No pool-attached replicas.");
  }

  @Test
  @Order(3)
  void once_the_role_drops_its_flag_the_replaced_replicas_match() throws Exception {
    TestObjects.edit(
        sandbox.client(),
        ModelDeployment.class,
        "team-a",
        "own-fp8",
        md -> {
          md.setSpec(
              md.getSpec()
                  .withRoles(
                      md.getSpec().roles().stream().map(r -> r.withExtraArgs(List.of())).toList()));
          return md;
        });
    Instant deadline = Instant.now().plus(Duration.ofMinutes(2));
    List<JsonNode> own = List.of();
    while (Instant.now().isBefore(deadline)) {
      CliRun verify =
          CliRun.of("verify", "-n", "team-a", "-o", "json", "--kubeconfig", kubeconfig.toString());
      own = replicas(verify, "ModelDeployment/own-fp8");
      if (own.size() == 2
          && own.stream().allMatch(r -> r.path("verdict").asText().equals("matches"))) {
        assertThat(verify.exitCode()).isZero();
        return;
      }
      Thread.sleep(1000);
    }
    throw new AssertionError("own-fp8 still reports " + own);
  }

  @Test
  @Order(4)
  void an_unreadable_cluster_exits_2() throws Exception {
    Path bogus = dir.resolve("bogus.kubeconfig");
    Files.writeString(
        bogus,
        sandbox
            .server()
            .kubeconfig()
            .replaceAll("https://127\\.0\\.0\\.1:\\d+", "https://127.0.0.1:1"));
    CliRun verify = CliRun.of("verify", "-A", "--kubeconfig", bogus.toString());
    assertThat(verify.exitCode()).isEqualTo(2);
    assertThat(verify.err()).startsWith("kvcache verify: cannot read the cluster: ");
  }

  /**
   * The operator reads what {@code verify} reads: every Ready attached replica, the injected Pod
   * too (whose reading, done by the Binding controller, once threw on every reconcile).
   */
  @Test
  @Order(5)
  void the_operator_observes_every_replica_verify_reads_the_injected_pod_included()
      throws Exception {
    long[] last = new long[2];
    ai.gpustack.kvcache.operator.TestObjects.await(
        "the operator's kvcache_replicas_observed to count what verify reads",
        Duration.ofSeconds(60),
        () -> {
          CliRun verify =
              CliRun.of("verify", "-A", "-o", "json", "--kubeconfig", kubeconfig.toString());
          try {
            last[0] = new ObjectMapper().readTree(verify.out()).path("replicas").size();
          } catch (java.io.IOException e) {
            return false;
          }
          last[1] =
              (long)
                  sandbox
                      .metrics()
                      .lines()
                      .filter(l -> l.startsWith("kvcache_replicas_observed{"))
                      .mapToDouble(l -> Double.parseDouble(l.substring(l.lastIndexOf(' ') + 1)))
                      .sum();
          return last[0] > 0 && last[0] == last[1];
        });
    assertThat(
            replicas(
                CliRun.of("verify", "-A", "-o", "json", "--kubeconfig", kubeconfig.toString()),
                "Deployment/injected-vllm"))
        .hasSize(1);
  }
}
