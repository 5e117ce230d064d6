package ai.gpustack.kvcache.api;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import org.junit.jupiter.api.Test;

/** The open set: a format an engine names is its own, and never a second name for a known one. */
class KvFormatTest {
  @Test
  void an_engine_defined_format_equals_only_the_same_name_from_the_same_engine() {
    KvFormat q4 = KvFormat.engineDefined("llama.cpp", "q4_0", "GGML Q4_0");
    assertThat(q4).isEqualTo(KvFormat.engineDefined("llama.cpp", "q4_0", "other words"));
    assertThat(q4).hasSameHashCodeAs(KvFormat.engineDefined("llama.cpp", "q4_0", "x"));
    assertThat(q4).isNotEqualTo(KvFormat.engineDefined("ollama", "q4_0", "GGML Q4_0"));
    assertThat(q4).hasToString("llama.cpp/q4_0");
    assertThat(q4.engine()).contains("llama.cpp");
    assertThat(KvFormat.BFLOAT16.engine()).isEmpty();
    assertThat(KvFormat.known()).contains(KvFormat.BFLOAT16).doesNotContain(q4);
  }

  @Test
  void a_known_format_cannot_be_named_again_by_an_engine() {
    assertThatThrownBy(() -> KvFormat.engineDefined("llama.cpp", "bfloat16", "bf16"))
        .hasMessage(
            "KV format \"bfloat16\" is one this library knows: use KvFormat.BFLOAT16 instead of an"
                + " engine-defined one");
    assertThatThrownBy(() -> KvFormat.engineDefined("llama.cpp", "Q4_0", "x"))
        .hasMessageContaining("must be named by its engine and 1 to 40 of a-z, 0-9 and _");
  }

  @Test
  @SuppressWarnings("deprecation")
  void the_enums_methods_still_answer_for_modules_written_against_it() {
    assertThat(KvFormat.valueOf("FLOAT8_E4M3FN")).isEqualTo(KvFormat.FLOAT8_E4M3FN);
    assertThat(KvFormat.MODEL_DEPENDENT.name()).isEqualTo("MODEL_DEPENDENT");
    assertThat(KvFormat.values()).hasSameSizeAs(KvFormat.known());
  }
}
