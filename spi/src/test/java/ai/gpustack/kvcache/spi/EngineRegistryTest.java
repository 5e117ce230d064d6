package ai.gpustack.kvcache.spi;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.List;
import org.junit.jupiter.api.Test;

class EngineRegistryTest {
  @Test
  void names_resolve_case_insensitively() {
    EngineRegistry registry =
        EngineRegistry.of(List.of(new TestEngine("vLLM"), new TestEngine("SGLang")));
    assertThat(registry.resolve("vllm").id()).isEqualTo("vLLM");
    assertThat(registry.resolve("SGLANG").id()).isEqualTo("SGLang");
    assertThat(registry.engines()).extracting(Engine::id).containsExactly("SGLang", "vLLM");
  }

  @Test
  void two_engines_with_one_id_are_refused_naming_both_classes() {
    assertThatThrownBy(
            () -> EngineRegistry.of(List.of(new TestEngine("vLLM"), new OtherTestEngine("VLLM"))))
        .isInstanceOf(IllegalStateException.class)
        .hasMessage(
            "two engine providers claim the id \"VLLM\": ai.gpustack.kvcache.spi.TestEngine (id"
                + " \"vLLM\") and ai.gpustack.kvcache.spi.OtherTestEngine; remove one of their jars"
                + " from the classpath");
  }

  @Test
  void a_blank_id_is_refused_naming_the_class() {
    assertThatThrownBy(() -> EngineRegistry.of(List.of(new TestEngine(" "))))
        .hasMessageContaining("engine provider ai.gpustack.kvcache.spi.TestEngine has id \" \"");
  }

  @Test
  void an_unknown_name_lists_the_registered_engines_and_the_artifact_to_add() {
    EngineRegistry registry = EngineRegistry.of(List.of(new TestEngine("vLLM")));
    assertThatThrownBy(() -> registry.resolve("SGLang"))
        .isInstanceOf(UnknownEngineException.class)
        .hasMessage(
            "engine \"SGLang\" is not registered (registered engines: vLLM); add"
                + " ai.gpustack.kvcache:kvcache-engine-sglang to the classpath");
    assertThat(registry.unknown("TGI"))
        .endsWith(
            "add the jar of an engine module whose provider has that id (see docs/writing-an-engine.md)");
    assertThat(EngineRegistry.of(List.of()).unknown("x"))
        .contains("no engine module is on the classpath");
  }

  @Test
  void the_service_loader_finds_providers_through_the_given_class_loader() {
    EngineRegistry registry = EngineRegistry.load(getClass().getClassLoader());
    assertThat(registry.engines()).extracting(Engine::id).containsExactly("test-engine");
  }

  @Test
  void portable_spellings_are_those_every_engine_accepts() {
    EngineRegistry registry =
        EngineRegistry.of(
            List.of(
                new TestEngine("a", "auto", "bf16", "fp8"), new TestEngine("b", "auto", "fp8")));
    assertThat(registry.acceptedByEveryRegisteredEngine()).containsExactly("auto", "fp8");
    assertThat(registry.anyAccepts("bf16")).isTrue();
    assertThat(registry.anyAccepts("float16")).isFalse();
  }
}
