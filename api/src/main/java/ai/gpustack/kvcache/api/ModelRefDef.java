package ai.gpustack.kvcache.api;

import com.fasterxml.jackson.annotation.JsonClassDescription;
import com.fasterxml.jackson.annotation.JsonIgnoreProperties;
import com.fasterxml.jackson.annotation.JsonInclude;
import com.fasterxml.jackson.annotation.JsonPropertyDescription;
import com.fasterxml.jackson.databind.annotation.JsonDeserialize;
import com.fasterxml.jackson.databind.annotation.JsonSerialize;
import io.fabric8.generator.annotation.Required;
import io.fabric8.generator.annotation.ValidationRule;
import org.immutables.value.Value;

/** The model a deployment serves; an identity field. */
@JsonClassDescription("The model a deployment serves; an identity field.")
@Value.Immutable
@JsonIgnoreProperties(ignoreUnknown = true)
@JsonInclude(JsonInclude.Include.NON_ABSENT)
@JsonSerialize(as = ModelRef.class)
@JsonDeserialize(as = ModelRef.class)
@ValidationRule(
    value = "self == oldSelf",
    message =
        "model is an identity field: a different value describes a different deployment, which is created rather than edited",
    reason = "FieldValueForbidden")
interface ModelRefDef {
  /** The model's name as the engine loads it (a hub id or a path). */
  @JsonPropertyDescription(
      "The model's name as the engine loads it: a model hub id or a path. An identity field: a"
          + " different value describes a different deployment, which is created rather than"
          + " edited.")
  @Required
  @Value.Parameter
  String name();
}
