package ai.gpustack.kvcache.spi;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.List;
import org.junit.jupiter.api.Test;

/** Short aliases, and the dialects of parsers that are not argparse (llama.cpp's). */
class ShortOptionsTest {
  private static final String K = "--cache-type-k";
  private static final List<FlagSpec> INVENTORY =
      List.of(
          FlagSpec.value(K).withAliases("-ctk"),
          FlagSpec.value("--cache-type-v").withAliases("-ctv"),
          FlagSpec.value("--spec-draft-type-k").withAliases("-ctkd", "--cache-type-k-draft"),
          FlagSpec.value("--port"));
  private static final ArgvDialect EXACT =
      ArgvDialect.builder()
          .parser("llama.cpp common_params_parse")
          .inlineValues(false)
          .underscoresAsDashes(true)
          .dottedMembers(false)
          .abbreviations(false)
          .doubleDashEndsOptions(false)
          .build();

  private final FlagReader llama = new FlagReader(EXACT, INVENTORY);
  private final FlagReader getopt =
      new FlagReader(ArgvDialect.copyOf(EXACT).withAttachedShortValues(true), INVENTORY);
  private final FlagReader argparse = new FlagReader(ArgvDialect.argparse(), INVENTORY);

  @Test
  void a_short_alias_reads_as_its_flag_and_is_named_as_written() {
    var found = llama.find(List.of("llama-server", "-ctk", "q4_0"), K);
    assertThat(found)
        .singleElement()
        .satisfies(
            o -> {
              assertThat(o.value()).contains("q4_0");
              assertThat(o.describe("llama.cpp"))
                  .isEqualTo("-ctk, which engine \"llama.cpp\" reads as --cache-type-k");
            });
    assertThat(llama.lastValue(List.of(K, "bf16", "-ctk", "q4_0"), K)).contains("q4_0");
  }

  @Test
  void a_dialect_without_inline_values_reads_flag_equals_value_as_no_flag_at_all() {
    assertThat(llama.names(List.of("--cache-type-k=q4_0"), K)).isFalse();
    assertThat(llama.names(List.of("-ctk=q4_0"), K)).isFalse();
    assertThat(llama.read("--cache-type-k=q4_0").orElseThrow().reading())
        .isEqualTo(FlagReading.UNKNOWN);
    assertThat(argparse.lastValue(List.of("-ctk=q4_0"), K)).contains("q4_0");
    assertThat(argparse.lastValue(List.of("--cache-type-k=q4_0"), K)).contains("q4_0");
  }

  @Test
  void an_attached_short_value_reads_only_where_the_dialect_allows_it() {
    assertThat(llama.names(List.of("-ctkq4_0"), K)).isFalse();
    assertThat(getopt.lastValue(List.of("-ctkq4_0"), K)).contains("q4_0");
    // The longest alias wins: -ctkd is the draft flag, not -ctk with the value "d".
    assertThat(getopt.names(List.of("-ctkdq8_0"), K)).isFalse();
    assertThat(getopt.lastValue(List.of("-ctkdq8_0"), "--spec-draft-type-k")).contains("q8_0");
  }

  @Test
  void exact_names_only_no_prefix_and_underscores_only_in_long_options() {
    assertThat(llama.names(List.of("--cache-type", "q4_0"), K)).isFalse();
    assertThat(argparse.find(List.of("--cache-type", "q4_0"), K).get(0).ambiguous()).isTrue();
    assertThat(llama.lastValue(List.of("--cache_type_k", "q8_0"), K)).contains("q8_0");
    assertThat(llama.names(List.of("-ctk_"), K)).isFalse();
    assertThat(llama.lastValue(List.of("--cache_type_k_draft", "f16"), "--spec-draft-type-k"))
        .as("a long alias is read like the canonical name")
        .contains("f16");
  }

  @Test
  void negative_numbers_and_unknown_short_tokens_are_no_options() {
    assertThat(llama.read("-1")).isEmpty();
    assertThat(llama.read("-x")).isEmpty();
    assertThat(llama.read("-")).isEmpty();
  }

  @Test
  void an_alias_that_is_no_option_spelling_is_refused_with_the_fix() {
    assertThatThrownBy(() -> FlagSpec.value("-ctk"))
        .hasMessageContaining("declare a short option as an alias");
    assertThatThrownBy(() -> FlagSpec.value(K).withAliases("ctk"))
        .hasMessageContaining("alias \"ctk\" of flag --cache-type-k is not an option spelling");
    assertThatThrownBy(
            () ->
                FlagInventory.builder()
                    .versions(VersionRange.any())
                    .source("s")
                    .addFlags(
                        FlagSpec.value(K).withAliases("-c"),
                        FlagSpec.value("--c").withAliases("-c"))
                    .build())
        .hasMessageContaining("lists a flag or alias twice");
  }
}
