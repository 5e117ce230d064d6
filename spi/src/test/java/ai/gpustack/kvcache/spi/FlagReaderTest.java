package ai.gpustack.kvcache.spi;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.List;
import org.junit.jupiter.api.Test;

class FlagReaderTest {
  private static final List<FlagSpec> INVENTORY =
      List.of(
          FlagSpec.value("--kv-cache-dtype"),
          FlagSpec.list("--kv-cache-dtype-skip-layers"),
          FlagSpec.value("--kv-cache-memory-bytes"),
          FlagSpec.value("--kv-transfer-config"),
          FlagSpec.value("--host"),
          FlagSpec.value("--port"));
  private static final String FLAG = "--kv-cache-dtype";

  private final FlagReader vllm = new FlagReader(ArgvDialect.vllmFlexibleArgparse(), INVENTORY);
  private final FlagReader argparse = new FlagReader(ArgvDialect.argparse(), INVENTORY);
  private final FlagReader click = new FlagReader(ArgvDialect.click(), INVENTORY);

  @Test
  void the_exact_flag_takes_the_next_token_as_its_value() {
    var found = vllm.find(List.of("serve", "m", FLAG, "fp8"), FLAG);
    assertThat(found)
        .singleElement()
        .satisfies(
            o -> {
              assertThat(o.index()).isEqualTo(2);
              assertThat(o.value()).contains("fp8");
              assertThat(o.describe("vLLM")).isEqualTo(FLAG);
            });
  }

  @Test
  void vllm_reads_underscores_and_dotted_members_as_the_flag() {
    var found = vllm.find(List.of("--kv_cache_dtype=fp8", "--kv-cache-dtype.x", "y"), FLAG);
    assertThat(found).hasSize(2);
    assertThat(found.get(0).describe("vLLM"))
        .isEqualTo("--kv_cache_dtype, which engine \"vLLM\" reads as --kv-cache-dtype");
    assertThat(found.get(0).value()).contains("fp8");
  }

  @Test
  void vllm_moves_dotted_members_to_the_end_so_they_beat_a_later_plain_value() {
    List<String> argv =
        List.of("--kv-cache-dtype.member=fp8", "--port", "8000", "--kv_cache_dtype", "bfloat16");
    assertThat(vllm.asParsed(argv))
        .containsExactly("--port", "8000", "--kv_cache_dtype", "bfloat16", FLAG, "fp8");
    assertThat(vllm.lastValue(argv, FLAG)).contains("fp8");
    assertThat(vllm.names(argv, FLAG)).isTrue();
  }

  @Test
  void a_dotted_member_before_a_bare_double_dash_comes_back_after_it_where_it_sets_nothing() {
    List<String> argv = List.of("--kv-cache-dtype.member", "fp8", "--");
    assertThat(vllm.asParsed(argv)).containsExactly("--", FLAG, "fp8");
    assertThat(vllm.lastValue(argv, FLAG)).isEmpty();
    assertThat(vllm.names(argv, FLAG)).as("still refused as naming the flag").isTrue();
  }

  @Test
  void plain_argparse_does_not_read_underscores() {
    assertThat(argparse.find(List.of("--kv_cache_dtype", "fp8"), FLAG)).isEmpty();
    assertThat(argparse.read("--kv_cache_dtype").orElseThrow().reading())
        .isEqualTo(FlagReading.UNKNOWN);
  }

  @Test
  void a_unique_prefix_is_the_flag_and_an_ambiguous_one_names_every_candidate() {
    assertThat(vllm.read("--kv-cache-dt=fp8").orElseThrow().reading())
        .isEqualTo(FlagReading.AMBIGUOUS);
    var abbreviation = vllm.read("--kv-t").orElseThrow();
    assertThat(abbreviation.reading()).isEqualTo(FlagReading.ABBREVIATION);
    assertThat(abbreviation.flag()).contains("--kv-transfer-config");
    var ambiguous = vllm.find(List.of("--kv-cache", "fp8"), FLAG);
    assertThat(ambiguous)
        .singleElement()
        .satisfies(
            o -> {
              assertThat(o.ambiguous()).isTrue();
              assertThat(o.token().candidates())
                  .containsExactly(
                      "--kv-cache-dtype",
                      "--kv-cache-dtype-skip-layers",
                      "--kv-cache-memory-bytes");
              assertThat(o.describe("vLLM"))
                  .contains("an ambiguous prefix: the engine exits on it");
            });
  }

  @Test
  void a_longer_flag_sharing_the_stem_is_not_the_flag() {
    assertThat(vllm.find(List.of("--kv-cache-dtype-skip-layers", "0"), FLAG)).isEmpty();
    assertThat(vllm.find(List.of("--kv-cache-memory-bytes=1"), FLAG)).isEmpty();
  }

  @Test
  void click_matches_names_exactly() {
    assertThat(click.find(List.of("--kv-cache-dtyp", "fp8"), FLAG)).isEmpty();
    assertThat(click.find(List.of("--kv-cache-dtype=fp8"), FLAG)).hasSize(1);
  }

  @Test
  void everything_after_a_bare_double_dash_is_positional() {
    assertThat(vllm.find(List.of("--", FLAG, "fp8"), FLAG)).isEmpty();
  }

  @Test
  void the_last_occurrence_wins_and_a_following_option_is_not_a_value() {
    assertThat(vllm.lastValue(List.of(FLAG, "fp8", "--kv-cache-dtype=bfloat16"), FLAG))
        .contains("bfloat16");
    assertThat(vllm.find(List.of(FLAG, "--host", "h"), FLAG).get(0).value()).isEmpty();
    assertThat(vllm.names(List.of("--host=0.0.0.0"), "--host")).isTrue();
  }
}
