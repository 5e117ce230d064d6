package ai.gpustack.kvcache.api;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.Map;
import java.util.Optional;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

class SettingsTest {
  @ParameterizedTest
  @ValueSource(strings = {"0", "f", "F", "FALSE", "false", "False"})
  void only_a_boolean_false_turns_the_dtype_rule_off(String value) {
    assertThat(Settings.kvCacheDtypeOwned(Optional.of(value))).isFalse();
  }

  @ParameterizedTest
  @ValueSource(strings = {"1", "t", "TRUE", "true", "True", "yes", "no", "", " false", "off"})
  void anything_else_reads_as_on(String value) {
    assertThat(Settings.kvCacheDtypeOwned(Optional.of(value))).isTrue();
  }

  @Test
  void a_missing_setting_reads_as_on() {
    assertThat(Settings.kvCacheDtypeOwned(Optional.empty())).isTrue();
    assertThat(Settings.effective(Map.of())).isEqualTo(EffectiveSettings.DEFAULTS);
  }

  @Test
  void the_spelling_check_reads_its_three_values_and_defaults_to_enforce() {
    assertThat(Settings.spellingCheck(Optional.of("Warn"))).isEqualTo(SpellingCheck.Warn);
    assertThat(Settings.spellingCheck(Optional.of("Off"))).isEqualTo(SpellingCheck.Off);
    assertThat(Settings.spellingCheck(Optional.of("warn"))).isEqualTo(SpellingCheck.Enforce);
    assertThat(Settings.spellingCheck(Optional.empty())).isEqualTo(SpellingCheck.Enforce);
  }

  @Test
  void each_setting_refuses_values_of_the_wrong_kind_and_says_what_it_takes() {
    assertThat(Settings.KV_CACHE_DTYPE_OWNED.refusal("yes"))
        .get()
        .asString()
        .startsWith("must be a boolean");
    assertThat(Settings.KV_CACHE_DTYPE_OWNED.refusal("False")).isEmpty();
    assertThat(Settings.KV_CACHE_DTYPE_SPELLING_CHECK.refusal("Strict"))
        .contains("must be one of Enforce, Warn, Off");
  }

  @Test
  void seed_variables_follow_the_upper_snake_name() {
    assertThat(Settings.KV_CACHE_DTYPE_OWNED.seedVariable())
        .isEqualTo("GPUSTACK_MODEL_DEPLOYMENT_KV_CACHE_DTYPE_OWNED");
  }
}
