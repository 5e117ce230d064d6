package ai.gpustack.kvcache.engine.vllm;

import static org.assertj.core.api.Assertions.assertThat;

import ai.gpustack.kvcache.api.EnvVar;
import ai.gpustack.kvcache.api.KvFormat;
import ai.gpustack.kvcache.api.ReuseDomain;
import ai.gpustack.kvcache.api.RoleKind;
import ai.gpustack.kvcache.spi.AttachmentRequest;
import ai.gpustack.kvcache.spi.CacheAttachment;
import ai.gpustack.kvcache.spi.Launch;
import ai.gpustack.kvcache.spi.ManagedRole;
import java.util.List;
import java.util.Optional;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import org.junit.jupiter.params.provider.ValueSource;

class VllmEngineTest {
  private final VllmEngine vllm = new VllmEngine();

  private static AttachmentRequest request(RoleKind kind) {
    return AttachmentRequest.builder()
        .roleKind(kind)
        .clientEndpoint("mooncake.kv:50051")
        .domain(ReuseDomain.builder().name("team-a").blockSize(16).dtype("bfloat16").build())
        .tenant("team-a")
        .build();
  }

  @ParameterizedTest
  @ValueSource(strings = {"0.3.0", "0.5.3", "0.11.0", "0.18.0", "0.29.0", "1.0.0"})
  void bf16_is_rejected_by_every_version(String version) {
    assertThat(vllm.checkDtype("bf16", Optional.of(version)).accepted()).isFalse();
  }

  @ParameterizedTest
  @CsvSource({
    "bfloat16, 0.10.2, false",
    "bfloat16, 0.11.0, true",
    "float16, 0.17.1, false",
    "float16, 0.18.0, true",
    "fp8_inc, 0.9.2, false",
    "fp8_inc, 0.10.0, true",
    "nvfp4, 0.19.1, false",
    "nvfp4, 0.20.0, true",
    "nvfp4_4over6, 0.27.1, false",
    "nvfp4_4over6, 0.28.0, true",
    "nvfp4_ds_mla, 0.29.0, false",
    "nvfp4_ds_mla, 0.30.0, true",
    "fp8_ds_mla, 0.11.0, false",
    "fp8_ds_mla, 0.11.1, true",
    "ultraquant_4bit, 0.31.0, false",
    "ultraquant_4bit, 0.32.0, true",
    "octave_k3v3_compact, 0.32.0, false",
    "octave_k3v3_compact, 0.33.0, true",
    "fp8, 0.4.0, false",
    "fp8, 0.4.1, true",
    "fp8_e5m2, 0.4.0, true",
    "fp8_e5m2, 0.4.2, false",
    "fp8_e5m2, 0.4.3, true",
    "fp8_e4m3, 0.4.2, false",
    "fp8_e4m3, 0.4.3, true",
    "turboquant_4bit_nc, 0.19.1, false",
    "turboquant_4bit_nc, 0.20.0, true",
  })
  void each_spelling_is_accepted_from_the_version_that_added_it(
      String dtype, String version, boolean accepted) {
    assertThat(vllm.checkDtype(dtype, Optional.of(version)).accepted()).isEqualTo(accepted);
  }

  @ParameterizedTest
  @CsvSource({
    "fp8_e5m2, 0.3.0, float8_e5m2",
    "fp8, 0.4.1, float8_e5m2",
    "fp8, 0.4.2, float8_e5m2",
    "fp8, 0.4.3, float8_e4m3fn",
    "fp8, 0.29.0, float8_e4m3fn",
    "fp8_e4m3, 0.11.0, float8_e4m3fn",
    "fp8_inc, 0.10.0, float8_e4m3fn",
    "auto, 0.29.0, model-dependent",
    "bfloat16, 0.11.0, bfloat16",
    "fp8_ds_mla, 0.11.1, fp8_ds_mla",
    "nvfp4, 0.20.0, nvfp4",
    "ultraquant_4bit, 0.32.0, ultraquant_4bit",
    "octave_k3v4, 0.33.0, octave_k3v4",
    "int8_per_token_head, 0.20.0, int8_per_token_head",
  })
  void fp8_stores_e5m2_in_0_4_1_and_0_4_2_and_e4m3_from_0_4_3(
      String dtype, String version, String format) {
    assertThat(vllm.kvFormat(dtype, Optional.of(version))).map(KvFormat::id).contains(format);
  }

  @Test
  void on_mi300_fp8_is_fnuz() {
    var rocm =
        vllm
            .dtypeSpellings()
            .forVersion(Optional.of("0.29.0"))
            .entry()
            .orElseThrow()
            .platforms()
            .stream()
            .filter(p -> p.platform().startsWith("ROCm gfx94x"))
            .findFirst()
            .orElseThrow();
    assertThat(rocm.formats()).containsEntry("fp8", KvFormat.FLOAT8_E4M3FNUZ);
  }

  @Test
  void the_flag_reader_follows_the_release_that_added_each_spelling() {
    // Underscores from FlexibleArgumentParser (0.5.1), dotted members from 0.9.0.
    assertThat(
            vllm.flagReader(Optional.of("0.5.0"))
                .names(List.of("--kv_cache_dtype", "x"), "--kv-cache-dtype"))
        .isFalse();
    assertThat(
            vllm.flagReader(Optional.of("0.5.1"))
                .names(List.of("--kv_cache_dtype", "x"), "--kv-cache-dtype"))
        .isTrue();
    assertThat(
            vllm.flagReader(Optional.of("0.8.5.post1"))
                .names(List.of("--kv-transfer-config.kv_role", "x"), "--kv-transfer-config"))
        .isFalse();
    assertThat(
            vllm.flagReader(Optional.of("0.9.0"))
                .names(List.of("--kv-transfer-config.kv_role", "x"), "--kv-transfer-config"))
        .isTrue();
  }

  @Test
  void skip_layers_and_config_change_the_kv_format_where_the_release_has_them() {
    assertThat(vllm.flagInventory(Optional.of("0.29.0")).kvFormatFlags())
        .extracting(f -> f.name())
        .contains("--config", "--kv-cache-dtype-skip-layers")
        .doesNotContain("--calculate-kv-scales");
    assertThat(vllm.flagInventory(Optional.of("0.5.3")).kvFormatFlags())
        .extracting(f -> f.name())
        .containsExactly("--quantization-param-path");
  }

  @Test
  void the_newest_table_is_cache_py_at_v0_33() {
    var verdict = vllm.checkDtype("bf16", Optional.empty());
    assertThat(verdict.spellings())
        .hasSize(22)
        .contains("bfloat16", "fp8", "nvfp4_ds_mla", "ultraquant_4bit", "octave_k3v3_compact");
    assertThat(verdict.source()).get().asString().contains("vllm/config/cache.py");
    assertThat(verdict.table()).isEqualTo("newest (no engine version given)");
  }

  @Test
  void from_0_33_argparse_takes_any_value_but_only_the_cache_dtype_literal_is_accepted() {
    // vllm/config/cache.py:470 refuses the rest after parsing, unless a platform plugin
    // registered it at run time, which no release file says
    assertThat(vllm.checkDtype("octave_k3v4", Optional.of("0.33.0")).accepted()).isTrue();
    assertThat(vllm.checkDtype("int8", Optional.of("0.33.0")).accepted()).isFalse();
  }

  @Test
  void a_managed_role_renders_serve_the_connector_the_dtype_extra_args_then_the_listen_fill() {
    AttachmentRequest request = request(RoleKind.Server);
    List<String> command =
        vllm.commandFor(
            ManagedRole.builder()
                .model("qwen/qwen3-8b")
                .addExtraArgs("--max-model-len=4096")
                .port(8080)
                .attachment(request)
                .build(),
            Optional.of(vllm.attachment(request)));
    assertThat(command)
        .containsExactly(
            "vllm",
            "serve",
            "qwen/qwen3-8b",
            "--kv-transfer-config",
            "{\"kv_connector\":\"MooncakeStoreConnector\",\"kv_role\":\"kv_both\"}",
            "--kv-cache-dtype",
            "bfloat16",
            "--max-model-len=4096",
            "--host",
            "0.0.0.0",
            "--port",
            "8080");
  }

  @Test
  void a_listen_flag_the_role_passes_itself_is_not_filled_again() {
    List<String> command =
        vllm.commandFor(
            ManagedRole.builder().model("m").addExtraArgs("--port=9000", "--host", "::").build(),
            Optional.empty());
    assertThat(command).containsExactly("vllm", "serve", "m", "--port=9000", "--host", "::");
  }

  @Test
  void an_injected_pod_gets_the_connector_then_the_dtype_as_the_last_two_args() {
    AttachmentRequest request = request(RoleKind.Decode);
    List<String> args =
        vllm.appendedArgs(List.of("vllm"), List.of("serve"), request, vllm.attachment(request));
    assertThat(args)
        .containsExactly(
            "--kv-transfer-config",
            "{\"kv_connector\":\"MooncakeStoreConnector\",\"kv_role\":\"kv_consumer\"}",
            "--kv-cache-dtype",
            "bfloat16");
  }

  @Test
  void the_store_client_is_configured_by_a_file_the_env_points_at() {
    CacheAttachment attachment = vllm.attachment(request(RoleKind.Prefill));
    assertThat(attachment.env())
        .containsExactly(EnvVar.of("MOONCAKE_CONFIG_PATH", "/etc/gpustack/kvcache/mooncake.json"));
    assertThat(attachment.clientConfig().orElseThrow().content())
        .isEqualTo(
            "{\"master_server_address\":\"mooncake.kv:50051\",\"metadata_server\":\"P2PHANDSHAKE\","
                + "\"protocol\":\"tcp\",\"tenant_id\":\"team-a\"}");
    assertThat(attachment.connectorArgs().get(1)).contains("kv_producer");
  }

  @Test
  void vllm_and_its_api_server_module_are_entry_points() {
    assertThat(vllm.launchedBy(Launch.identify(List.of("vllm", "serve")))).isTrue();
    assertThat(
            vllm.launchedBy(
                Launch.identify(List.of("python3", "-m", "vllm.entrypoints.openai.api_server"))))
        .isTrue();
    assertThat(vllm.launchedBy(Launch.identify(List.of("python3", "-m", "sglang.launch_server"))))
        .isFalse();
  }
}
