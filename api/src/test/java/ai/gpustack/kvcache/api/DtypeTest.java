package ai.gpustack.kvcache.api;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import org.junit.jupiter.api.Test;

class DtypeTest {
  @Test
  void a_lowercase_spelling_is_kept_verbatim() {
    assertThat(Dtype.of("fp8_e4m3").value()).isEqualTo("fp8_e4m3");
    assertThat(Dtype.of("fp4_e2m1").toString()).isEqualTo("fp4_e2m1");
  }

  @Test
  void a_mixed_case_spelling_is_refused_quoting_it_and_the_lowercase_fix() {
    assertThatThrownBy(() -> Dtype.of("BFloat16"))
        .isInstanceOf(ProblemsException.class)
        .hasMessageContaining("dtype: Invalid value: \"BFloat16\"")
        .hasMessageContaining("(\"bfloat16\")")
        .hasMessageContaining("two spellings of one type would read as two types");
  }

  @Test
  void an_empty_spelling_is_required() {
    assertThatThrownBy(() -> Dtype.of(""))
        .hasMessageContaining("dtype: Required value: the element type the cached tensors carry");
  }

  @Test
  void thirty_two_characters_are_the_limit() {
    assertThat(Dtype.of("a".repeat(32)).value()).hasSize(32);
    assertThatThrownBy(() -> Dtype.of("a".repeat(33)))
        .hasMessageContaining("must be no more than 32 characters (it has 33)");
  }
}
