package ai.gpustack.kvcache.spi;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.Optional;
import org.junit.jupiter.api.Test;

class EngineVersionTest {
  @Test
  void versions_compare_as_python_packages_do() {
    assertThat(EngineVersion.parse("0.5.13.post1")).isGreaterThan(EngineVersion.parse("0.5.3rc2"));
    assertThat(EngineVersion.parse("v0.11.0")).isEqualByComparingTo(EngineVersion.parse("0.11"));
    assertThat(EngineVersion.parse("0.10.2")).isLessThan(EngineVersion.parse("0.11.0"));
    // A post-release follows its release and precedes the next; a pre-release precedes it.
    assertThat(EngineVersion.parse("0.4.1.post6"))
        .isGreaterThan(EngineVersion.parse("0.4.1.post5"))
        .isGreaterThan(EngineVersion.parse("0.4.1"))
        .isLessThan(EngineVersion.parse("0.4.2"));
    assertThat(EngineVersion.parse("0.5.3rc2"))
        .isLessThan(EngineVersion.parse("0.5.3"))
        .isGreaterThan(EngineVersion.parse("0.5.3rc1"))
        .isGreaterThan(EngineVersion.parse("0.5.2.post9"));
    assertThat(EngineVersion.parse("v0.5.4.post3-cu126"))
        .isEqualByComparingTo(EngineVersion.parse("0.5.4.post3"));
    assertThat(VersionRange.of("0.4.1.post6", "0.5.4").contains(EngineVersion.parse("0.4.1.post5")))
        .isFalse();
  }

  @Test
  void a_version_without_a_number_is_refused_quoting_it() {
    assertThatThrownBy(() -> EngineVersion.parse("latest"))
        .hasMessage(
            "engine version \"latest\" is not a version: not a release number such as 0.11.0, a"
                + " build number such as b4500 or a date such as 2025.01.17");
  }

  @Test
  void ranges_include_their_start_and_exclude_their_end() {
    VersionRange range = VersionRange.of("0.11.0", "0.18.0");
    assertThat(range.contains(EngineVersion.parse("0.11.0"))).isTrue();
    assertThat(range.contains(EngineVersion.parse("0.17.9"))).isTrue();
    assertThat(range.contains(EngineVersion.parse("0.18.0"))).isFalse();
    assertThat(range).hasToString(">=0.11.0 <0.18.0");
    assertThat(VersionRange.of("0.29.0", null)).hasToString(">=0.29.0");
    assertThat(VersionRange.any()).hasToString("any");
  }

  @Test
  void a_table_answers_by_version_the_newest_by_default_and_nothing_before_it_began() {
    SpellingTable table =
        SpellingTable.builder()
            .addEntries(
                DtypeSpellings.of("0.3.0", "0.4.0", "a", "auto"),
                DtypeSpellings.of("0.4.0", null, "b", "auto", "fp8"))
            .build();
    assertThat(table.forVersion(Optional.of("0.3.5")).entry().orElseThrow().source())
        .isEqualTo("a");
    assertThat(table.forVersion(Optional.empty()).entry().orElseThrow().source()).isEqualTo("b");
    assertThat(table.forVersion(Optional.of("nightly")).basis())
        .isEqualTo("newest (engine version \"nightly\" is not a version)");
    assertThat(table.forVersion(Optional.of("0.2.0")).entry()).isEmpty();
  }

  @Test
  void overlapping_ranges_and_uppercase_spellings_are_refused() {
    assertThatThrownBy(
            () ->
                SpellingTable.builder()
                    .addEntries(
                        DtypeSpellings.of("0.3.0", "0.5.0", "a", "auto"),
                        DtypeSpellings.of("0.4.0", null, "b", "auto"))
                    .build())
        .hasMessageContaining("must ascend without overlapping");
    assertThatThrownBy(() -> DtypeSpellings.of(null, null, "a", "BF16"))
        .hasMessageContaining("must be lowercase");
    assertThatThrownBy(() -> DtypeSpellings.of(null, null, " ", "bf16"))
        .hasMessageContaining("name no source");
  }
}
