package ai.gpustack.kvcache.operator.cli;

import static org.assertj.core.api.Assertions.assertThat;

import ai.gpustack.kvcache.operator.TestObjects;
import ai.gpustack.kvcache.resources.ModelDeployment;
import ai.gpustack.kvcache.spi.EngineRegistry;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@code kvcache explain} against the sandbox: the resolver's path, the Settings, the table and
 * format, each owned-flag occurrence with its field path, the render and the engine's report.
 */
class ExplainIT {
  @TempDir static Path dir;
  static Sandbox sandbox;
  static Path kubeconfig;

  @BeforeAll
  static void start() throws Exception {
    sandbox = Sandbox.start(EngineRegistry.load(), 0, new PrintWriter(new StringWriter()));
    sandbox.applyExamples();
    assertThat(sandbox.awaitSettled()).isTrue();
    // The upgrade guide's wedge: stored on bf16 while the Setting was off, held once it is on.
    sandbox.flip(false);
    sandbox
        .client()
        .resource(
            sandbox
                .client()
                .getKubernetesSerialization()
                .unmarshal(
                    """
                    apiVersion: worker.gpustack.ai/v1
                    kind: ModelDeployment
                    metadata: {name: legacy-vllm, namespace: team-a}
                    spec:
                      model: {name: qwen/qwen3-8b}
                      engine: {name: vLLM}
                      kvCache: {poolRef: {name: legacy}}
                      roles: [{name: server, extraArgs: ["--kv_cache_dtype=fp8"]}]
                    """,
                    ModelDeployment.class))
        .create();
    // Its replica too: the explanation reads what the running engine reports.
    TestObjects.awaitTaken(sandbox.client(), "team-a", "legacy-vllm", 1);
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

  static CliRun explain(String... args) {
    String[] all = new String[args.length + 3];
    all[0] = "explain";
    System.arraycopy(args, 0, all, 1, args.length);
    all[args.length + 1] = "--kubeconfig";
    all[args.length + 2] = kubeconfig.toString();
    return CliRun.of(all);
  }

  @Test
  void a_deployment_is_explained_from_its_binding_to_what_its_engine_reports() {
    CliRun run = explain("md/chat-vllm", "-n", "team-a");

    assertThat(run.exitCode()).as(run.err()).isZero();
    assertThat(run.out())
        .contains("spec.engine \"vLLM\" → engine module vLLM")
        .contains("selects the spelling table")
        .contains("model-deployment-kv-cache-dtype-owned: on")
        .contains("kv-cache-dtype-spelling-check: Enforce")
        .contains("Attachment (spec.kvCache.poolRef.name = \"chat\"):")
        .contains(
            "KVCachePoolBinding team-a/chat: domain \"team-a-chat\", blockSize 16, dtype \"bfloat16\"")
        .contains("KVCachePool shared, spec.backends[0] → KVCacheBackend mooncake")
        .contains("tenant \"team-a-chat\"")
        .contains("dtype: ACCEPTED: engine \"vLLM\" accepts \"bfloat16\"")
        .contains("format: vLLM stores \"bfloat16\" as bfloat16")
        .contains("owned flags in spec.roles[0].extraArgs: none")
        .containsPattern(
            "renders: vllm serve qwen/qwen3-8b --kv-transfer-config \\S+ --kv-cache-dtype bfloat16 --max-model-len=8192")
        .contains(
            "Pod chat-vllm-server-0: Ready; its argv hands the engine \"bfloat16\"; the engine"
                + " reports \"bfloat16\" (GET :8000/metrics): matches")
        .contains("status.phase: Ready");
  }

  @Test
  void a_held_deployment_names_the_refusal_its_own_flag_and_the_migration_that_recovers_it() {
    CliRun run = explain("modeldeployment/legacy-vllm", "-n", "team-a");

    assertThat(run.exitCode()).as(run.err()).isZero();
    assertThat(run.out())
        .contains("dtype: REJECTED: KVCachePoolBinding \"legacy\" declares dtype \"bf16\"")
        .contains("refused at spec.kvCache.poolRef.name (SpellingRejectedByEngine)")
        .contains("recovery: kvcache migrate --binding team-a/legacy --dtype bfloat16")
        .contains(
            "spec.roles[0].extraArgs[0]: --kv_cache_dtype, which engine \"vLLM\" reads as"
                + " --kv-cache-dtype = \"fp8\" (refused while the dtype is owned)")
        .contains("held: replicas keep their last good render (SpellingRejectedByEngine)")
        .contains("the engine reports \"fp8\"")
        .contains("DtypeAccepted=False SpellingRejectedByEngine");
  }

  @Test
  void an_injected_pod_shows_its_annotations_its_record_and_where_the_flag_was_appended() {
    CliRun run = explain("pod/injected-vllm-0", "-n", "team-a");

    assertThat(run.exitCode()).as(run.err()).isZero();
    assertThat(run.out())
        .contains("kvcache.gpustack.ai/binding: \"chat\"")
        .contains("Attachment (metadata.annotations[kvcache.gpustack.ai/binding] = \"chat\"):")
        .contains(
            "Injected: metadata.annotations[kvcache.gpustack.ai/injected] = {\"binding\":\"chat\"")
        .containsPattern(
            "spec\\.containers\\[0\\]\\.args\\[\\d+\\]: --kv-cache-dtype = \"bfloat16\"")
        .contains("the engine reports \"bfloat16\" (GET :8000/metrics): matches");
  }

  @Test
  void a_binding_lists_what_each_engine_makes_of_its_dtype_and_who_attaches() {
    CliRun run = explain("kvcpb/chat", "-n", "team-a");

    assertThat(run.exitCode()).as(run.err()).isZero();
    assertThat(run.out())
        .contains("domain claim: no other Binding on backend mooncake names \"team-a-chat\"")
        .contains("vLLM: accepts it, stored as bfloat16")
        .contains("SGLang: accepts it, stored as bfloat16")
        .contains(
            "ModelDeployment chat-sglang (SGLang 0.5.18): accepted, stored as bfloat16, phase Ready")
        .contains("Pod injected-vllm-0 (injected, vLLM): accepted, stored as bfloat16")
        .containsPattern(
            "status.usedBy: \\[ModelDeployment chat-(sglang|vllm), ModelDeployment chat-(vllm|sglang)\\]");
  }

  @Test
  void an_object_that_is_not_there_or_not_named_as_kind_slash_name_exits_2() {
    CliRun missing = explain("md/nope", "-n", "team-a");
    assertThat(missing.exitCode()).isEqualTo(2);
    assertThat(missing.err()).contains("ModelDeployment team-a/nope not found");
    CliRun unnamed = explain("chat-vllm");
    assertThat(unnamed.exitCode()).isEqualTo(2);
    assertThat(unnamed.err())
        .contains("chat-vllm: name the object as md/NAME, pod/NAME or binding/NAME");
  }
}
