package ai.gpustack.kvcache.api;

import com.fasterxml.jackson.annotation.JsonClassDescription;
import com.fasterxml.jackson.annotation.JsonIgnoreProperties;
import com.fasterxml.jackson.annotation.JsonInclude;
import com.fasterxml.jackson.annotation.JsonPropertyDescription;
import com.fasterxml.jackson.databind.annotation.JsonDeserialize;
import com.fasterxml.jackson.databind.annotation.JsonSerialize;
import io.fabric8.generator.annotation.Required;
import io.fabric8.generator.annotation.Size;
import io.fabric8.generator.annotation.ValidationRule;
import java.util.Optional;
import org.immutables.value.Value;

/**
 * The engine every role of a deployment runs: {@code vLLM}, {@code SGLang}, or the id of any engine
 * module on the classpath, matched case-insensitively. The version is free-form and selects the
 * engine's spelling table; the newest when absent.
 */
@JsonClassDescription("The engine every role of a deployment runs.")
@Value.Immutable
@JsonIgnoreProperties(ignoreUnknown = true)
@JsonInclude(JsonInclude.Include.NON_ABSENT)
@JsonSerialize(as = EngineRef.class)
@JsonDeserialize(as = EngineRef.class)
interface EngineRefDef {
  @JsonPropertyDescription(
      "The engine: vLLM, SGLang, or the id of any installed engine module, matched"
          + " case-insensitively. An identity field: a different value describes a different"
          + " deployment, which is created rather than edited.")
  @Required
  @ValidationRule(
      value = "self == oldSelf",
      message =
          "engine.name is an identity field: a different value describes a different deployment, which is created rather than edited",
      reason = "FieldValueForbidden")
  String name();

  @JsonPropertyDescription(
      "The engine's version, free-form, 1 to 64 characters. Selects the engine's table of accepted"
          + " dtype spellings; the newest table when absent.")
  @Size(min = 1, max = 64)
  Optional<String> version();
}
