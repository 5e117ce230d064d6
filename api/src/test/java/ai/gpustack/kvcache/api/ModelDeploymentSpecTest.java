package ai.gpustack.kvcache.api;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.fasterxml.jackson.databind.ObjectMapper;
import org.junit.jupiter.api.Test;

class ModelDeploymentSpecTest {
  private final ObjectMapper json = Json.newMapper();

  @Test
  void defaults_fill_in_and_a_round_trip_keeps_what_was_written() throws Exception {
    String written =
        "{\"model\":{\"name\":\"qwen/qwen3-8b\"},\"engine\":{\"name\":\"vLLM\"},"
            + "\"kvCache\":{\"poolRef\":{\"name\":\"team-a\"}},"
            + "\"roles\":[{\"name\":\"server\",\"extraArgs\":[\"--max-model-len=4096\"]}],"
            + "\"someFutureField\":1}";
    ModelDeploymentSpec spec = json.readValue(written, ModelDeploymentSpec.class);
    Role role = spec.roles().get(0);
    assertThat(role.kind()).isEqualTo(RoleKind.Server);
    assertThat(role.replicas()).isEqualTo(1);
    assertThat(role.isTakeOver()).isFalse();
    assertThat(spec.kvCache().orElseThrow().connector()).isEqualTo("Mooncake");
    assertThat(spec.engine().version()).isEmpty();
    assertThat(json.readValue(json.writeValueAsString(spec), ModelDeploymentSpec.class))
        .isEqualTo(spec);
    assertThat(json.writeValueAsString(spec))
        .doesNotContain("command")
        .doesNotContain("version")
        .doesNotContain("null");
  }

  @Test
  void a_spec_without_a_required_field_does_not_read() {
    assertThatThrownBy(
            () ->
                json.readValue(
                    "{\"engine\":{\"name\":\"vLLM\"},\"roles\":[]}", ModelDeploymentSpec.class))
        .hasMessageContaining("model");
  }
}
