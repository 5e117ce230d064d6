package com.example.kvcache.llamacpp;

import static org.assertj.core.api.Assertions.assertThat;

import ai.gpustack.kvcache.api.Dtype;
import ai.gpustack.kvcache.api.KvFormat;
import ai.gpustack.kvcache.api.ReuseDomain;
import ai.gpustack.kvcache.api.RoleKind;
import ai.gpustack.kvcache.spi.AttachmentRequest;
import ai.gpustack.kvcache.spi.EngineRegistry;
import ai.gpustack.kvcache.spi.FlagOccurrence;
import ai.gpustack.kvcache.spi.FlagReader;
import ai.gpustack.kvcache.spi.ManagedRole;
import ai.gpustack.kvcache.spi.VersionScheme;
import java.util.List;
import java.util.Optional;
import org.junit.jupiter.api.Nested;
import org.junit.jupiter.api.Test;

/** What llama.cpp's command line and build numbers mean for this engine, beyond the contract. */
class LlamacppEngineTest {
  static final String K = LlamacppEngine.CACHE_TYPE_K;
  static final String V = LlamacppEngine.CACHE_TYPE_V;
  final LlamacppEngine engine = new LlamacppEngine();

  FlagReader reader(String version) {
    return engine.flagReader(Optional.of(version));
  }

  @Nested
  class ItsParserReadsOnlyWhatLlamaCppReads {
    @Test
    void a_role_passing_the_short_spelling_passes_the_dtype_flag() {
      List<FlagOccurrence> found = reader("b4500").find(List.of("-ctk", "q4_0"), K);
      assertThat(found).hasSize(1);
      assertThat(found.get(0).value()).contains("q4_0");
      assertThat(found.get(0).describe(engine.id()))
          .isEqualTo("-ctk, which engine \"llama.cpp\" reads as --cache-type-k");
      assertThat(reader("b2251").find(List.of("-ctv", "q8_0"), V)).hasSize(1);
    }

    @Test
    void an_inline_value_is_no_flag_since_llama_cpp_refuses_it() {
      // b4500 common/arg.cpp:251-253: "error: invalid argument: --cache-type-k=q4_0", exit 1
      for (String version : List.of("b2251", "b3087", "b4500", "b6754")) {
        assertThat(reader(version).find(List.of("--cache-type-k=q4_0"), K)).isEmpty();
        assertThat(reader(version).find(List.of("-ctk=q4_0"), K)).isEmpty();
        assertThat(reader(version).find(List.of("-ctkq4_0"), K)).isEmpty();
      }
    }

    @Test
    void names_are_exact_no_prefix_is_the_flag() {
      assertThat(reader("b4500").find(List.of("--cache-type", "q4_0"), K)).isEmpty();
      assertThat(reader("b4500").find(List.of("--cache-t", "q4_0"), K)).isEmpty();
    }

    @Test
    void underscores_read_as_dashes_only_from_the_common_parser() {
      assertThat(reader("b3087").find(List.of("--cache_type_k", "q4_0"), K)).hasSize(1);
      assertThat(reader("b4500").find(List.of("--cache_type_v", "q4_0"), V)).hasSize(1);
      // the server's own loop before b3087 compared names as written
      assertThat(reader("b3086").find(List.of("--cache_type_k", "q4_0"), K)).isEmpty();
      // short options are never rewritten
      assertThat(reader("b4500").find(List.of("-c_tk", "q4_0"), K)).isEmpty();
    }

    @Test
    void the_last_value_wins_as_llama_cpp_assigns_each_in_turn() {
      assertThat(reader("b4500").lastValue(List.of(K, "bf16", "-ctk", "q4_0"), K)).contains("q4_0");
    }

    @Test
    void flash_attention_is_a_switch_until_b6325_and_takes_on_off_auto_from_then() {
      assertThat(engine.flagInventory(Optional.of("b2770")).flag(LlamacppEngine.FLASH_ATTN))
          .isEmpty();
      assertThat(reader("b4500").find(List.of("-fa", "-ctk", "q8_0"), LlamacppEngine.FLASH_ATTN))
          .singleElement()
          .satisfies(o -> assertThat(o.value()).isEmpty());
      assertThat(reader("b6325").find(List.of("-fa", "on"), LlamacppEngine.FLASH_ATTN))
          .singleElement()
          .satisfies(o -> assertThat(o.value()).contains("on"));
      assertThat(engine.flagInventory(Optional.of("b4500")).kvFormatFlags())
          .extracting(f -> f.name())
          .containsExactly(LlamacppEngine.FLASH_ATTN);
    }
  }

  @Nested
  class TheBindingsSpellingIsTranslatedToGgmlsName {
    @Test
    void bfloat16_renders_bf16_on_both_flags() {
      assertThat(command("bfloat16", "b4500"))
          .containsSequence(K, "bf16", V, "bf16")
          .doesNotContain("bfloat16");
    }

    @Test
    void ggml_block_types_render_verbatim() {
      assertThat(command("q8_0", "b4500")).containsSequence(K, "q8_0", V, "q8_0");
      assertThat(command("float16", "b2251")).containsSequence(K, "f16", V, "f16");
    }

    @Test
    void an_injected_container_ends_with_the_translated_pair() {
      AttachmentRequest request = request("bfloat16", "4500");
      assertThat(
              engine.appendedArgs(
                  List.of("/app/llama-server"),
                  List.of("-m", "/models/m.gguf"),
                  request,
                  engine.attachment(request)))
          .containsExactly(K, "bf16", V, "bf16");
    }

    @Test
    void ggmls_own_names_are_accepted_as_written_and_store_what_vllms_do() {
      assertThat(engine.acceptsDtype("bf16", Optional.of("b4500"))).isTrue();
      assertThat(engine.acceptsDtype("bf16", Optional.of("b4039"))).isFalse();
      assertThat(engine.engineValue("bf16", Optional.of("b4500"))).isEqualTo("bf16");
      assertThat(engine.kvFormat("bf16", Optional.of("b4500")))
          .isEqualTo(engine.kvFormat("bfloat16", Optional.of("b4500")));
      assertThat(engine.kvFormat("f16", Optional.of("b2300")))
          .isEqualTo(engine.kvFormat("float16", Optional.of("b2300")));
    }

    @Test
    void a_value_read_off_a_replica_stands_for_the_bindings_spelling() {
      assertThat(engine.engineValue("bfloat16", Optional.of("b4500"))).isEqualTo("bf16");
      assertThat(engine.bindingSpelling("bf16", Optional.of("b4500"))).isEqualTo("bfloat16");
      assertThat(engine.bindingSpelling("q4_0", Optional.of("b4500"))).isEqualTo("q4_0");
      // llama.cpp refuses bfloat16: read back verbatim, it stands for no Binding spelling
      assertThat(engine.bindingSpelling("bfloat16", Optional.of("b4500"))).isEqualTo("bfloat16");
    }

    @Test
    void the_ggml_types_are_llama_cpps_own_formats() {
      assertThat(engine.kvFormat("q8_0", Optional.empty()))
          .contains(KvFormat.engineDefined("llama.cpp", "q8_0", "any description"))
          .isNotEqualTo(
              Optional.of(KvFormat.engineDefined("another-engine", "q8_0", "any description")));
      assertThat(engine.kvFormat("bfloat16", Optional.empty())).contains(KvFormat.BFLOAT16);
      assertThat(engine.kvFormat("float32", Optional.empty())).contains(LlamacppEngine.FLOAT32);
    }
  }

  @Nested
  class VersionsAreBuildNumbers {
    @Test
    void b1000_predates_the_servers_dtype_flags_and_has_no_table() {
      assertThat(engine.dtypeSpellings().forVersion(Optional.of("b1000")).entry()).isEmpty();
      assertThat(engine.checkDtype("float16", Optional.of("b1000")).accepted()).isFalse();
      assertThat(engine.checkDtype("float16", Optional.of("b1000")).spellings()).isEmpty();
    }

    @Test
    void b4500_reads_the_table_from_b4040_written_with_or_without_the_b() {
      for (String version : List.of("b4500", "4500")) {
        var spellings = engine.dtypeSpellings().forVersion(Optional.of(version)).entry();
        assertThat(spellings).get().satisfies(s -> assertThat(s.source()).contains("b4040"));
        assertThat(engine.acceptsDtype("bfloat16", Optional.of(version))).isTrue();
      }
    }

    @Test
    void bf16_arrived_in_b4040_and_iq4_nl_q5_in_b2481() {
      assertThat(engine.acceptsDtype("bfloat16", Optional.of("b4038"))).isFalse();
      assertThat(engine.acceptsDtype("bfloat16", Optional.of("b4040"))).isTrue();
      assertThat(engine.acceptsDtype("iq4_nl", Optional.of("b2480"))).isFalse();
      assertThat(engine.acceptsDtype("q5_0", Optional.of("b2480"))).isFalse();
      assertThat(engine.acceptsDtype("q5_1", Optional.of("b2481"))).isTrue();
    }

    @Test
    void a_release_number_is_not_a_build_number() {
      assertThat(engine.versionScheme()).isEqualTo(VersionScheme.BUILD_NUMBER);
      assertThat(engine.versionScheme().reads("b4500")).isTrue();
      assertThat(engine.versionScheme().reads("0.1.1")).isFalse();
    }

    @Test
    void the_default_image_is_the_builds_cuda_server_image() {
      assertThat(engine.defaultImage(Optional.of("b4500")))
          .contains("ghcr.io/ggml-org/llama.cpp:server-cuda-b4500");
      assertThat(engine.defaultImage(Optional.of("4500")))
          .contains("ghcr.io/ggml-org/llama.cpp:server-cuda-b4500");
      assertThat(engine.defaultImage(Optional.empty()))
          .contains("ghcr.io/ggml-org/llama.cpp:server-cuda");
      assertThat(engine.defaultImage(Optional.of("0.1.1"))).isEmpty();
    }
  }

  @Test
  void the_registry_finds_it_next_to_the_engines_it_ships_with() {
    assertThat(EngineRegistry.load().find("LLAMA.CPP")).get().isInstanceOf(LlamacppEngine.class);
  }

  List<String> command(String dtype, String version) {
    ManagedRole role =
        ManagedRole.builder()
            .model("/models/m.gguf")
            .engineVersion(Optional.of(version))
            .attachment(request(dtype, version))
            .build();
    return engine.commandFor(role, role.attachment().map(engine::attachment));
  }

  AttachmentRequest request(String dtype, String version) {
    return AttachmentRequest.builder()
        .roleKind(RoleKind.Server)
        .engineVersion(Optional.of(version))
        .clientEndpoint("unused:0")
        .domain(ReuseDomain.builder().name("team-a").blockSize(16).dtype(dtype).build())
        .tenant("team-a")
        .dtype(Optional.of(Dtype.of(dtype)))
        .build();
  }
}
