package ai.gpustack.kvcache.sandbox;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.stream.IntStream;
import org.junit.jupiter.api.Test;

class FaultsTest {
  @Test
  void the_issues_spec_reads_with_codes_as_a_list() {
    Faults faults =
        Faults.parse("rate=0.05,codes=409,429,500,503,latency=0-200ms,watch-drop=30s,expired=0.01");

    assertThat(faults.active()).isTrue();
    assertThat(faults.toString())
        .isEqualTo(
            "rate=0.05 codes=[409, 429, 500, 503] latency=0-200ms watch-drop=30000ms expired=0.01");
  }

  @Test
  void a_conflict_falls_only_on_updates_and_the_share_is_kept() {
    Faults faults = Faults.parse("rate=0.5,codes=409,seed=3");

    assertThat(IntStream.range(0, 1000).mapToObj(i -> faults.error("GET")))
        .allMatch(java.util.Optional::isEmpty);
    long conflicts =
        IntStream.range(0, 1000).filter(i -> faults.error("PATCH").isPresent()).count();
    assertThat(conflicts).isBetween(400L, 600L);
    assertThat(faults.injected()).containsEntry("409", conflicts);
  }

  @Test
  void the_sandboxs_own_stand_ins_are_spared() {
    Faults faults = Faults.parse("rate=1");

    assertThat(faults.applies(Faults.EXEMPT_AGENT + "/7.5.2")).isFalse();
    assertThat(faults.applies("kvcache-operator/replica-a")).isTrue();
    assertThat(Faults.none().applies("kubectl/v1.32.0")).isFalse();
  }

  @Test
  void a_bad_spec_names_the_key_the_value_and_what_it_takes() {
    assertThatThrownBy(() -> Faults.parse("rate=5"))
        .hasMessage("--faults: rate=5: use a share between 0 and 1, such as 0.05");
    assertThatThrownBy(() -> Faults.parse("codes=404"))
        .hasMessage(
            "--faults: codes=404: the sandbox answers [409, 429, 500, 503] (410 is expired=)");
    assertThatThrownBy(() -> Faults.parse("latency=200"))
        .hasMessage("--faults: latency=200: use a range in milliseconds, such as 0-200ms");
    assertThatThrownBy(() -> Faults.parse("watch-drop=soon"))
        .hasMessage("--faults: watch-drop=soon: use a duration such as 500ms, 30s or 2m");
    assertThatThrownBy(() -> Faults.parse("chaos=1"))
        .hasMessage(
            "--faults: unknown key chaos; the keys are rate, codes, latency, watch-drop, expired and"
                + " seed");
    assertThatThrownBy(() -> Faults.parse("rate=0.1,500"))
        .hasMessage("--faults: \"500\" is not key=value (only codes takes a list)");
  }
}
