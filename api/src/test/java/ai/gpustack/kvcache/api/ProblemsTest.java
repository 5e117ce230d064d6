package ai.gpustack.kvcache.api;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.core.type.TypeReference;
import java.util.List;
import java.util.Map;
import org.assertj.core.api.InstanceOfAssertFactories;
import org.junit.jupiter.api.Test;

class ProblemsTest {
  @Test
  void messages_read_like_kubernetes_field_errors() {
    Problems p =
        Problems.create()
            .required("spec.domain.dtype", "name it")
            .forbidden("spec.poolRef", "poolRef is immutable")
            .duplicate("spec.domain.name", "default", "held by ns/b")
            .invalid("spec.roles[0].extraArgs[1]", "--kv-cache-dtype", "set by the operator")
            .notSupported("spec.engine.name", "TGI", "supported values: \"SGLang\", \"vLLM\"");
    assertThat(p.messages())
        .containsExactly(
            "spec.domain.dtype: Required value: name it",
            "spec.poolRef: Forbidden: poolRef is immutable",
            "spec.domain.name: Duplicate value: \"default\": held by ns/b",
            "spec.roles[0].extraArgs[1]: Invalid value: \"--kv-cache-dtype\": set by the operator",
            "spec.engine.name: Unsupported value: \"TGI\": supported values: \"SGLang\", \"vLLM\"");
  }

  @Test
  void every_problem_is_thrown_once_together() {
    Problems p = Problems.create().required("a", "x").required("b", "y");
    assertThatThrownBy(() -> p.throwIfAny("KVCachePoolBinding \"b\""))
        .isInstanceOf(ProblemsException.class)
        .hasMessage(
            "KVCachePoolBinding \"b\" is invalid: [a: Required value: x, b: Required value: y]")
        .satisfies(e -> assertThat(((ProblemsException) e).problems()).hasSize(2));
  }

  @Test
  void nothing_is_thrown_when_nothing_was_found() {
    Problems.create().throwIfAny("anything");
  }

  @Test
  void a_failed_read_is_a_problem_at_the_field_it_failed_at() {
    assertThat(
            readFailure(
                "{\"domains\": [{\"blockSize\": 16, \"dtype\": \"fp8\"}, {\"blockSize\": \"x\"}]}"))
        .singleElement(InstanceOfAssertFactories.STRING)
        .startsWith("domains[1].blockSize: Invalid value: Cannot deserialize value of type `int`")
        .doesNotContain("\n");
  }

  @Test
  void a_failed_read_names_every_required_attribute_it_missed() {
    assertThat(readFailure("{\"domains\": [{\"name\": \"a\"}]}"))
        .containsExactly(
            "domains[0].blockSize: Required value", "domains[0].dtype: Required value");
  }

  private static List<String> readFailure(String json) {
    try {
      Json.newMapper().readValue(json, new TypeReference<Map<String, List<ReuseDomain>>>() {});
    } catch (JsonProcessingException e) {
      return Problems.ofReadFailure(e).messages();
    }
    throw new AssertionError("read: " + json);
  }

  @Test
  void values_are_quoted_like_go_does() {
    assertThat(Quoting.quote("a\"b\\c\n")).isEqualTo("\"a\\\"b\\\\c\\n\"");
  }
}
