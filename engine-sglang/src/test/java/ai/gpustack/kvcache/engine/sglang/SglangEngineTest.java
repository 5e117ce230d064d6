package ai.gpustack.kvcache.engine.sglang;

import static org.assertj.core.api.Assertions.assertThat;

import ai.gpustack.kvcache.api.EnvVar;
import ai.gpustack.kvcache.api.KvFormat;
import ai.gpustack.kvcache.api.ReuseDomain;
import ai.gpustack.kvcache.spi.AttachmentRequest;
import ai.gpustack.kvcache.spi.CacheAttachment;
import ai.gpustack.kvcache.spi.ManagedRole;
import java.util.List;
import java.util.Optional;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import org.junit.jupiter.params.provider.ValueSource;

class SglangEngineTest {
  private final SglangEngine sglang = new SglangEngine();

  private static AttachmentRequest request() {
    return AttachmentRequest.builder()
        .clientEndpoint("mooncake.kv:50051")
        .domain(ReuseDomain.builder().name("team-a").blockSize(16).dtype("bf16").build())
        .tenant("team-a")
        .build();
  }

  @ParameterizedTest
  @ValueSource(strings = {"0.2.14", "0.4.2", "0.5.4", "0.5.18", "0.9.0"})
  void fp8_and_float16_are_rejected_by_every_version(String version) {
    assertThat(sglang.checkDtype("fp8", Optional.of(version)).accepted()).isFalse();
    assertThat(sglang.checkDtype("float16", Optional.of(version)).accepted()).isFalse();
  }

  @ParameterizedTest
  @CsvSource({
    "bf16, 0.5.3, false",
    "bf16, 0.5.4, true",
    "fp8_e4m3, 0.4.1.post5, false",
    "fp8_e4m3, 0.4.1.post6, true",
    "fp4_e2m1, 0.5.4.post2, false",
    "fp4_e2m1, 0.5.4.post3, true",
    "fp4_e2m1, 0.5.15, true",
    "nvfp4, 0.5.15, false",
    "nvfp4, 0.5.16, true",
    "fp4_e2m1, 0.5.16, false",
  })
  void each_spelling_is_accepted_where_the_table_says(
      String dtype, String version, boolean accepted) {
    assertThat(sglang.checkDtype(dtype, Optional.of(version)).accepted()).isEqualTo(accepted);
  }

  @Test
  void a_managed_role_renders_the_storage_backend_the_dtype_extra_args_then_hierarchical_cache() {
    List<String> command =
        sglang.commandFor(
            ManagedRole.builder()
                .model("qwen/qwen3-8b")
                .addExtraArgs("--mem-fraction-static", "0.8")
                .attachment(request())
                .build(),
            Optional.of(sglang.attachment(request())));
    assertThat(command)
        .containsExactly(
            "python3",
            "-m",
            "sglang.launch_server",
            "--model-path",
            "qwen/qwen3-8b",
            "--hicache-storage-backend",
            "mooncake",
            "--kv-cache-dtype",
            "bf16",
            "--mem-fraction-static",
            "0.8",
            "--enable-hierarchical-cache",
            "--host",
            "0.0.0.0",
            "--port",
            "30000");
  }

  @Test
  void hierarchical_cache_is_not_repeated_when_the_role_names_it() {
    List<String> command =
        sglang.commandFor(
            ManagedRole.builder()
                .model("m")
                .addExtraArgs("--enable-hierarchical")
                .attachment(request())
                .build(),
            Optional.of(sglang.attachment(request())));
    assertThat(command)
        .doesNotContain("--enable-hierarchical-cache")
        .contains("--enable-hierarchical");
  }

  @Test
  void an_injected_pod_ends_with_the_dtype_after_the_defaulted_switch() {
    AttachmentRequest request = request();
    List<String> args =
        sglang.appendedArgs(
            List.of("python3", "-m", "sglang.launch_server"),
            List.of("--model-path", "m"),
            request,
            sglang.attachment(request));
    assertThat(args)
        .containsExactly(
            "--hicache-storage-backend",
            "mooncake",
            "--enable-hierarchical-cache",
            "--kv-cache-dtype",
            "bf16");
  }

  @Test
  void the_store_client_is_configured_by_environment_the_operator_owns() {
    CacheAttachment attachment = sglang.attachment(request());
    assertThat(attachment.env())
        .contains(
            EnvVar.of("MOONCAKE_MASTER", "mooncake.kv:50051"),
            EnvVar.of("MOONCAKE_TENANT_ID", "team-a"));
    assertThat(attachment.clientConfig()).isEmpty();
    assertThat(
            sglang.renderEnv(
                List.of(EnvVar.of("MOONCAKE_TENANT_ID", "mine"), EnvVar.of("MC_TE_METRIC", "0")),
                attachment))
        .contains(EnvVar.of("MOONCAKE_TENANT_ID", "team-a"), EnvVar.of("MC_TE_METRIC", "0"))
        .doesNotContain(EnvVar.of("MOONCAKE_TENANT_ID", "mine"));
  }

  @ParameterizedTest
  @CsvSource({
    "fp8_e5m2, 0.2.14, float8_e5m2",
    "fp8_e4m3, 0.4.1.post6, float8_e4m3fn",
    "bf16, 0.5.4, bfloat16",
    "fp4_e2m1, 0.5.4.post3, fp4_e2m1_block16_e8m0",
    "fp4_mx_block16, 0.5.16, fp4_e2m1_block16_e8m0",
    "mxfp8, 0.5.16, mxfp8",
    "auto, 0.5.16, model-dependent",
  })
  void each_spelling_maps_to_the_format_it_stores(String dtype, String version, String format) {
    assertThat(sglang.kvFormat(dtype, Optional.of(version))).map(KvFormat::id).contains(format);
  }

  @Test
  void config_files_are_read_from_0_5_3rc2() {
    assertThat(sglang.flagInventory(Optional.of("0.5.3rc1")).flag("--config")).isEmpty();
    assertThat(sglang.flagInventory(Optional.of("0.5.3")).kvFormatFlags())
        .extracting(f -> f.name())
        .containsExactly("--quantization-param-path", "--config");
  }

  @ParameterizedTest
  @CsvSource({
    "fp8_e4m3, 0.5.6.post1, float8_e4m3fnuz",
    "fp8_e5m2, 0.5.6.post1, float8_e5m2fnuz",
    "fp8_e4m3, 0.5.6.post2, float8_e4m3fnuz",
    "fp8_e5m2, 0.5.6.post2, float8_e4m3fnuz",
  })
  void on_rocm_fp8_follows_the_device_from_0_5_6_post2(
      String dtype, String version, String format) {
    var rocm =
        sglang
            .dtypeSpellings()
            .forVersion(Optional.of(version))
            .entry()
            .orElseThrow()
            .platforms()
            .get(0);
    assertThat(rocm.formats().get(dtype)).extracting(KvFormat::id).isEqualTo(format);
  }

  @Test
  void the_draft_models_kv_dtype_changes_the_format_from_0_5_18() {
    assertThat(sglang.flagInventory(Optional.of("0.5.17")).kvFormatFlags())
        .extracting(f -> f.name())
        .doesNotContain("--speculative-draft-kv-cache-dtype");
    assertThat(sglang.flagInventory(Optional.of("0.5.18")).kvFormatFlags())
        .extracting(f -> f.name())
        .contains("--speculative-draft-kv-cache-dtype");
  }

  @Test
  void from_0_5_6_the_report_reads_server_info_not_its_deprecated_alias() {
    assertThat(sglang.dtypeReport(Optional.of("0.5.5")).orElseThrow().path())
        .isEqualTo("/get_server_info");
    var report = sglang.dtypeReport(Optional.of("0.5.6")).orElseThrow();
    assertThat(report.path()).isEqualTo("/server_info");
    assertThat(report.source()).contains("/get_server_info", "deprecated alias");
  }

  @Test
  void the_underscore_spelling_is_not_the_flag_on_sglang() {
    assertThat(
            sglang
                .flagReader(Optional.empty())
                .find(List.of("--kv_cache_dtype", "fp8"), "--kv-cache-dtype"))
        .isEmpty();
    assertThat(
            sglang
                .flagReader(Optional.empty())
                .find(List.of("--kv-cache", "fp8"), "--kv-cache-dtype"))
        .hasSize(1);
  }
}
