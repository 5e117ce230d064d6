package com.example.kvcache.trtllm;

import static org.assertj.core.api.Assertions.assertThat;

import ai.gpustack.kvcache.api.ReuseDomain;
import ai.gpustack.kvcache.spi.AttachmentRequest;
import ai.gpustack.kvcache.spi.EngineRegistry;
import ai.gpustack.kvcache.spi.FlagReader;
import java.util.List;
import java.util.Optional;
import org.junit.jupiter.api.Test;

/** What click's command line means for this engine, beyond the shared contract. */
class TrtllmEngineTest {
  final TrtllmEngine engine = new TrtllmEngine();
  final FlagReader reader = engine.flagReader(Optional.of("1.3.0rc22"));

  @Test
  void only_the_underscored_name_is_the_dtype_option() {
    assertThat(reader.find(List.of("--kv_cache_dtype", "fp8"), TrtllmEngine.DTYPE_FLAG)).hasSize(1);
    assertThat(reader.find(List.of("--kv_cache_dtype=fp8"), TrtllmEngine.DTYPE_FLAG)).hasSize(1);
    // click knows no dashed spelling and no prefixes: these are errors, never the dtype
    assertThat(reader.find(List.of("--kv-cache-dtype", "fp8"), TrtllmEngine.DTYPE_FLAG)).isEmpty();
    assertThat(reader.find(List.of("--kv_cache", "fp8"), TrtllmEngine.DTYPE_FLAG)).isEmpty();
  }

  @Test
  void only_auto_fp8_and_nvfp4_are_accepted() {
    assertThat(engine.checkDtype("fp8", Optional.of("1.3.0")).accepted()).isTrue();
    assertThat(engine.checkDtype("nvfp4", Optional.empty()).accepted()).isTrue();
    assertThat(engine.checkDtype("bfloat16", Optional.empty()).accepted()).isFalse();
    assertThat(engine.checkDtype("fp8_e4m3", Optional.empty()).spellings())
        .containsExactly("auto", "fp8", "nvfp4");
  }

  @Test
  void an_injected_container_ends_with_the_underscored_dtype_pair() {
    AttachmentRequest request =
        AttachmentRequest.builder()
            .clientEndpoint("master:50051")
            .domain(ReuseDomain.builder().name("team-a").blockSize(16).dtype("fp8").build())
            .build();
    assertThat(
            engine.appendedArgs(
                List.of("trtllm-serve"), List.of("m"), request, engine.attachment(request)))
        .containsExactly("--kv_cache_dtype", "fp8");
  }

  @Test
  void the_registry_finds_it_next_to_the_engines_it_ships_with() {
    EngineRegistry registry = EngineRegistry.load();
    assertThat(registry.find("tensorrt-llm")).get().isInstanceOf(TrtllmEngine.class);
  }
}
