package ai.gpustack.kvcache.spi;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.Optional;
import org.junit.jupiter.api.Test;

class VersionSchemeTest {
  @Test
  void build_numbers_read_with_or_without_their_b_and_order_by_number() {
    assertThat(VersionScheme.BUILD_NUMBER.reads("b4500")).isTrue();
    assertThat(VersionScheme.BUILD_NUMBER.reads("4500")).isTrue();
    assertThat(VersionScheme.BUILD_NUMBER.reads("0.11.0")).isFalse();
    assertThat(VersionScheme.BUILD_NUMBER.parse("b4500"))
        .isEqualByComparingTo(EngineVersion.parse("4500"))
        .isGreaterThan(EngineVersion.parse("b999"))
        .isLessThan(EngineVersion.parse("b10470"));
    assertThat(VersionRange.of("b2251", "b4040").contains(EngineVersion.parse("b1000"))).isFalse();
  }

  @Test
  void dates_read_dashed_or_dotted_and_order_by_day() {
    assertThat(VersionScheme.DATE.parse("2025-01-17"))
        .isEqualByComparingTo(EngineVersion.parse("2025.01.17"))
        .isLessThan(EngineVersion.parse("2025-02-01"));
    assertThat(VersionScheme.DATE.reads("2025-13-01")).isFalse();
    assertThat(VersionScheme.DATE.reads("20250117")).isFalse();
  }

  @Test
  void a_version_outside_the_scheme_is_refused_naming_the_scheme() {
    assertThatThrownBy(() -> VersionScheme.BUILD_NUMBER.parse("latest"))
        .hasMessage("engine version \"latest\" is not a build number such as b4500 or 4500");
    assertThat(VersionScheme.PEP440.reads("b4500")).isFalse();
    assertThat(VersionScheme.PEP440.reads("v0.5.4.post3-cu126")).isTrue();
  }

  @Test
  void a_translated_spelling_renders_the_engine_value_and_reads_back_as_the_binding_spelling() {
    DtypeSpellings row =
        DtypeSpellings.builder()
            .versions(VersionRange.of("b4040", null))
            .source("llama.cpp b4500 common/arg.cpp:170-180")
            .addSpellings("bfloat16", "q8_0")
            .putEngineValues("bfloat16", "bf16")
            .build();
    assertThat(row.engineValue("bfloat16")).isEqualTo("bf16");
    assertThat(row.engineValue("q8_0")).isEqualTo("q8_0");
    assertThat(row.bindingSpelling("bf16")).contains("bfloat16");
    assertThat(row.bindingSpelling("q8_0")).contains("q8_0");
    assertThat(row.bindingSpelling("bfloat16"))
        .as("the engine is never handed bfloat16, so no replica reports it")
        .isEqualTo(Optional.empty());
    assertThatThrownBy(() -> row.withEngineValues(java.util.Map.of("float16", "f16")))
        .hasMessageContaining("translate float16 but do not accept it");
  }
}
