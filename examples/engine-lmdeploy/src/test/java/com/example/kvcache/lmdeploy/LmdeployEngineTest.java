package com.example.kvcache.lmdeploy;

import static org.assertj.core.api.Assertions.assertThat;

import ai.gpustack.kvcache.api.KvFormat;
import ai.gpustack.kvcache.api.ReuseDomain;
import ai.gpustack.kvcache.spi.AttachmentRequest;
import ai.gpustack.kvcache.spi.EngineRegistry;
import ai.gpustack.kvcache.spi.Launch;
import ai.gpustack.kvcache.spi.ManagedRole;
import java.util.List;
import java.util.Optional;
import org.junit.jupiter.api.Test;

/** What LMDeploy's integer codes and its subcommand launch mean, beyond the shared contract. */
class LmdeployEngineTest {
  final LmdeployEngine engine = new LmdeployEngine();

  @Test
  void a_name_and_its_code_are_one_format_from_0_14() {
    Optional<String> v = Optional.of("0.14.0");
    assertThat(engine.kvFormat("int8", v)).isEqualTo(engine.kvFormat("8", v));
    assertThat(engine.kvFormat("fp8", v))
        .isEqualTo(engine.kvFormat("16", v))
        .isEqualTo(engine.kvFormat("fp8_e4m3", v))
        .contains(KvFormat.FLOAT8_E4M3FN);
    assertThat(engine.kvFormat("fp8_e5m2", v)).contains(KvFormat.FLOAT8_E5M2);
  }

  @Test
  void names_are_refused_before_0_14_where_the_parser_takes_codes_only() {
    assertThat(engine.checkDtype("int8", Optional.of("0.13.0")).accepted()).isFalse();
    assertThat(engine.checkDtype("8", Optional.of("0.13.0")).accepted()).isTrue();
    assertThat(engine.checkDtype("16", Optional.of("0.13.0")).accepted()).isFalse();
    assertThat(engine.checkDtype("42", Optional.of("0.13.0")).accepted()).isTrue();
    assertThat(engine.checkDtype("42", Optional.of("0.12.0")).accepted()).isFalse();
  }

  @Test
  void code_4_stored_8_bit_before_0_4_and_4_bit_from_then() {
    assertThat(engine.kvFormat("4", Optional.of("0.3.0"))).contains(KvFormat.INT8_CALIBRATED);
    assertThat(engine.kvFormat("4", Optional.of("0.4.0")))
        .contains(KvFormat.INT4_ASYM_PER_TOKEN_HEAD);
    assertThat(engine.kvFormat("8", Optional.of("0.4.0")))
        .contains(KvFormat.INT8_ASYM_PER_TOKEN_HEAD);
  }

  @Test
  void zero_and_none_keep_the_models_dtype() {
    assertThat(engine.leavesModelDtype("0", Optional.empty())).isTrue();
    assertThat(engine.leavesModelDtype("none", Optional.empty())).isTrue();
    assertThat(engine.leavesModelDtype("8", Optional.empty())).isFalse();
    assertThat(EngineRegistry.of(List.of(engine)).leavingModelDtype("none"))
        .containsExactly("LMDeploy");
  }

  @Test
  void only_the_api_server_subcommand_is_this_engines_launch() {
    assertThat(engine.launchedBy(Launch.identify(List.of("lmdeploy", "serve", "api_server", "m"))))
        .isTrue();
    assertThat(
            engine.launchedBy(
                Launch.identify(List.of("python3", "-m", "lmdeploy", "serve", "api_server", "m"))))
        .isTrue();
    assertThat(engine.launchedBy(Launch.identify(List.of("lmdeploy", "chat", "m")))).isFalse();
    assertThat(engine.launchedBy(Launch.identify(List.of("lmdeploy", "serve", "gradio", "m"))))
        .isFalse();
  }

  @Test
  void the_underscored_flag_reads_as_the_dtype_flag_from_0_9_2_only() {
    List<String> argv = List.of("--quant_policy", "8");
    assertThat(engine.flagReader(Optional.of("0.9.0")).find(argv, "--quant-policy")).isEmpty();
    assertThat(engine.flagReader(Optional.of("0.9.2")).lastValue(argv, "--quant-policy"))
        .contains("8");
  }

  @Test
  void a_zero_or_more_list_before_the_flag_does_not_swallow_it() {
    List<String> argv = List.of("--adapters", "--quant-policy", "8");
    assertThat(engine.flagReader(Optional.empty()).lastValue(argv, "--quant-policy"))
        .contains("8");
  }

  @Test
  void a_managed_role_runs_the_api_server_with_the_code_and_lmdeploys_listen_flags() {
    AttachmentRequest request =
        AttachmentRequest.builder()
            .engineVersion("0.16.0")
            .clientEndpoint("master:50051")
            .domain(ReuseDomain.builder().blockSize(64).dtype("int8").build())
            .build();
    assertThat(
            engine.commandFor(
                ManagedRole.builder()
                    .model("internlm/internlm2_5-7b-chat")
                    .engineVersion("0.16.0")
                    .attachment(request)
                    .build(),
                Optional.of(engine.attachment(request))))
        .containsExactly(
            "lmdeploy",
            "serve",
            "api_server",
            "internlm/internlm2_5-7b-chat",
            "--quant-policy",
            "int8",
            "--server-name",
            "0.0.0.0",
            "--server-port",
            "23333");
  }
}
