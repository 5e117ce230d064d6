package ai.gpustack.kvcache.attach;

import static org.assertj.core.api.Assertions.assertThat;

import ai.gpustack.kvcache.api.EffectiveSettings;
import ai.gpustack.kvcache.api.Problem;
import ai.gpustack.kvcache.api.ReuseDomain;
import ai.gpustack.kvcache.api.SpellingCheck;
import ai.gpustack.kvcache.spi.EngineRegistry;
import java.util.List;
import java.util.Optional;
import org.junit.jupiter.api.Test;

/** The embedding façade refuses what the webhook refuses, at the caller's field paths. */
class KvCacheArgsTest {
  final KvCacheArgs kv = KvCacheArgs.of(EngineRegistry.load());

  WorkloadArgs.Builder vllm(String dtype) {
    return engine("vllm", dtype);
  }

  WorkloadArgs.Builder engine(String engine, String dtype) {
    return WorkloadArgs.builder()
        .engine(engine)
        .engineVersion("0.11.0")
        .model("qwen/qwen3-8b")
        .domain(ReuseDomain.builder().name("team-a").blockSize(16).dtype(dtype).build())
        .clientEndpoint("mooncake-master.kv.svc:50051")
        .tenant("team-a")
        .argsPath("spec.server.args")
        .dtypePath("spec.server.cache")
        .dtypeSource("InferenceService \"chat\"");
  }

  @Test
  void the_dtype_given_once_is_rendered_once_before_the_workloads_own_args() {
    KvCacheArgs.Rendered r =
        kv.managedCommand(vllm("bfloat16").addArgs("--max-num-seqs", "8").build());
    assertThat(r.attaches()).isTrue();
    assertThat(r.argv())
        .containsSubsequence("--kv-cache-dtype", "bfloat16", "--max-num-seqs", "8")
        .containsOnlyOnce("--kv-cache-dtype");
    assertThat(r.clientConfig()).isPresent();
    assertThat(r.env()).extracting(e -> e.name()).contains("MOONCAKE_CONFIG_PATH");
  }

  @Test
  void the_workloads_own_dtype_flag_is_refused_at_its_path_in_any_spelling() {
    KvCacheArgs.Rendered r =
        kv.managedCommand(
            vllm("bfloat16").addArgs("--served-model-name", "m", "--kv_cache_dtype=fp8").build());
    assertThat(r.attaches()).isFalse();
    assertThat(r.argv()).isEmpty();
    Problem p = r.refusals().get(0);
    assertThat(p.field()).isEqualTo("spec.server.args[2]");
    assertThat(p.message())
        .contains(
            "the workload passes --kv_cache_dtype, which engine \"vLLM\" reads as --kv-cache-dtype"
                + " while it attaches a KV cache pool, but its dtype comes from InferenceService"
                + " \"chat\"");
  }

  @Test
  void a_version_the_engines_scheme_does_not_read_is_refused_instead_of_picking_the_newest_table() {
    KvCacheArgs.Rendered r =
        kv.managedCommand(
            WorkloadArgs.copyOf(vllm("bfloat16").build())
                .withEngineVersion("b4500")
                .withEngineVersionPath("spec.engine.version"));
    assertThat(r.attaches()).isFalse();
    assertThat(r.refusals())
        .singleElement()
        .satisfies(
            p -> {
              assertThat(p.field()).isEqualTo("spec.engine.version");
              assertThat(p.message())
                  .contains(
                      "Invalid value: \"b4500\": engine \"vLLM\" numbers its versions as a"
                          + " release number such as 0.11.0 (PEP 440)");
            });
  }

  @Test
  void a_dtype_that_does_not_read_is_refused_at_the_dtype_path_even_with_the_check_off() {
    KvCacheArgs.Rendered r =
        kv.managedCommand(
            vllm("BFloat16")
                .settings(EffectiveSettings.DEFAULTS.withSpellingCheck(SpellingCheck.Off))
                .build());
    assertThat(r.attaches()).isFalse();
    assertThat(r.refusals())
        .singleElement()
        .satisfies(
            p -> {
              assertThat(p.field()).isEqualTo("spec.server.cache");
              assertThat(p.reason()).contains(Refusal.DTYPE_UNREADABLE);
              assertThat(p.message()).contains("must be lowercase (\"bfloat16\")");
            });
  }

  @Test
  void a_spelling_the_engine_rejects_is_refused_at_the_dtype_path_with_what_it_accepts() {
    KvCacheArgs.Rendered r = kv.managedCommand(vllm("bf16").build());
    assertThat(r.refusals())
        .singleElement()
        .satisfies(
            p -> {
              assertThat(p.field()).isEqualTo("spec.server.cache");
              assertThat(p.detail())
                  .startsWith(
                      "InferenceService \"chat\" declares dtype \"bf16\", which engine \"vLLM\" 0.11.0 does not accept")
                  .contains("bfloat16");
            });
  }

  @Test
  void under_warn_a_rejected_spelling_is_rendered_with_a_warning() {
    KvCacheArgs.Rendered r =
        kv.managedCommand(
            vllm("bf16")
                .settings(EffectiveSettings.DEFAULTS.withSpellingCheck(SpellingCheck.Warn))
                .build());
    assertThat(r.attaches()).isTrue();
    assertThat(r.argv()).containsSequence("--kv-cache-dtype", "bf16");
    assertThat(r.warnings()).singleElement().asString().contains("does not accept");
  }

  @Test
  void with_the_dtype_not_owned_nothing_is_rendered_and_the_workloads_flag_is_its_own() {
    KvCacheArgs.Rendered r =
        kv.managedCommand(
            vllm("bfloat16")
                .addArgs("--kv-cache-dtype", "fp8")
                .settings(EffectiveSettings.DEFAULTS.withKvCacheDtypeOwned(false))
                .build());
    assertThat(r.attaches()).isTrue();
    assertThat(r.argv())
        .containsOnlyOnce("--kv-cache-dtype")
        .containsSequence("--kv-cache-dtype", "fp8");
  }

  @Test
  void an_injected_container_keeps_its_args_and_ends_with_the_dtype() {
    KvCacheArgs.Rendered r =
        kv.injectedArgs(vllm("bfloat16").addCommand("vllm").addArgs("serve", "m").build());
    assertThat(r.argv()).startsWith("serve", "m").endsWith("--kv-cache-dtype", "bfloat16");
  }

  @Test
  void a_connector_flag_in_the_command_is_refused_at_the_command_path() {
    List<Problem> problems =
        kv.checkArgs(
            vllm("bfloat16")
                .addCommand("vllm", "serve", "--kv-transfer-config", "{}")
                .commandPath("spec.server.command")
                .build());
    assertThat(problems)
        .singleElement()
        .satisfies(p -> assertThat(p.field()).isEqualTo("spec.server.command[2]"));
  }

  @Test
  void an_unknown_engine_is_refused_naming_the_registered_ones() {
    KvCacheArgs.Rendered r =
        kv.managedCommand(engine("tgi", "bfloat16").enginePath("spec.engine").build());
    assertThat(r.refusals())
        .singleElement()
        .satisfies(
            p -> {
              assertThat(p.field()).isEqualTo("spec.engine");
              assertThat(p.detail()).contains("registered engines: SGLang, vLLM");
            });
  }

  @Test
  void a_dtype_is_checked_against_an_engine_version_with_what_it_accepts() {
    var verdict = kv.checkDtype("SGLang", "fp8", Optional.of("0.5.0"));
    assertThat(verdict.accepted()).isFalse();
    assertThat(verdict.spellings()).contains("fp8_e4m3");
  }
}
