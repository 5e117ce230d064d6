package ai.gpustack.kvcache.api;

import com.fasterxml.jackson.annotation.JsonClassDescription;
import com.fasterxml.jackson.annotation.JsonIgnoreProperties;
import com.fasterxml.jackson.annotation.JsonInclude;
import com.fasterxml.jackson.annotation.JsonPropertyDescription;
import com.fasterxml.jackson.databind.annotation.JsonDeserialize;
import com.fasterxml.jackson.databind.annotation.JsonSerialize;
import io.fabric8.generator.annotation.Required;
import org.immutables.value.Value;

/** An environment variable of a role's container. */
@JsonClassDescription("An environment variable of a role's container.")
@Value.Immutable
@JsonIgnoreProperties(ignoreUnknown = true)
@JsonInclude(JsonInclude.Include.NON_ABSENT)
@JsonSerialize(as = EnvVar.class)
@JsonDeserialize(as = EnvVar.class)
interface EnvVarDef {
  @JsonPropertyDescription("The variable's name.")
  @Required
  @Value.Parameter
  String name();

  @JsonPropertyDescription("The variable's value; defaults to the empty string.")
  @Value.Parameter
  @Value.Default
  default String value() {
    return "";
  }
}
