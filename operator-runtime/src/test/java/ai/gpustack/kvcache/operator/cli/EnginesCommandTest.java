package ai.gpustack.kvcache.operator.cli;

import static org.assertj.core.api.Assertions.assertThat;

import ai.gpustack.kvcache.api.Json;
import com.fasterxml.jackson.databind.JsonNode;
import org.junit.jupiter.api.Test;

class EnginesCommandTest {
  @Test
  void the_text_lists_both_engines_their_tables_with_sources_and_the_portable_spellings() {
    CliRun run = CliRun.of("engines");
    assertThat(run.exitCode()).isZero();
    assertThat(run.out())
        .contains("vLLM", "SGLang", "ai.gpustack.kvcache:kvcache-engine-vllm")
        .contains("vLLM --kv-cache-dtype spellings", "SGLang --kv-cache-dtype spellings")
        .contains(">=0.33.0", "vllm 0.33.0 sdist: vllm/config/cache.py:44")
        .contains(
            "Accepted by every registered engine (newest tables): auto bfloat16 fp8_e4m3 fp8_e5m2 nvfp4");
  }

  @Test
  void json_carries_every_range_with_its_source() throws Exception {
    CliRun run = CliRun.of("engines", "-o", "json");
    assertThat(run.exitCode()).isZero();
    JsonNode root = Json.newMapper().readTree(run.out());
    assertThat(root.get("engines")).hasSize(2);
    JsonNode vllm = root.get("engines").get(1);
    assertThat(vllm.get("id").asText()).isEqualTo("vLLM");
    JsonNode newest = vllm.get("spellings").get(vllm.get("spellings").size() - 1);
    assertThat(newest.get("from").asText()).isEqualTo("0.33.0");
    assertThat(newest.has("until")).isFalse();
    assertThat(newest.get("accepted").toString())
        .contains("\"bfloat16\"")
        .doesNotContain("\"bf16\"");
    assertThat(root.get("portable").toString())
        .isEqualTo("[\"auto\",\"bfloat16\",\"fp8_e4m3\",\"fp8_e5m2\",\"nvfp4\"]");
  }

  @Test
  void every_source_names_a_release_file_or_why_none_can_say() throws Exception {
    CliRun run = CliRun.of("engines", "-o", "json");
    assertThat(run.exitCode()).isZero();
    assertThat(run.out()).doesNotContainIgnoringCase("not pinned");
    assertThat(run.out()).doesNotContainIgnoringCase("not read");
    assertThat(run.out()).doesNotContainIgnoringCase("inferred");
  }

  @Test
  void an_unknown_format_is_a_usage_error() {
    CliRun run = CliRun.of("engines", "-o", "yaml");
    assertThat(run.exitCode()).isEqualTo(2);
    assertThat(run.err()).contains("Invalid value for option '--output'");
  }
}
