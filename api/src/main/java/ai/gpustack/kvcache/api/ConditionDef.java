package ai.gpustack.kvcache.api;

import com.fasterxml.jackson.annotation.JsonClassDescription;
import com.fasterxml.jackson.annotation.JsonIgnore;
import com.fasterxml.jackson.annotation.JsonIgnoreProperties;
import com.fasterxml.jackson.annotation.JsonInclude;
import com.fasterxml.jackson.annotation.JsonPropertyDescription;
import com.fasterxml.jackson.databind.annotation.JsonDeserialize;
import com.fasterxml.jackson.databind.annotation.JsonSerialize;
import io.fabric8.generator.annotation.Required;
import java.util.Optional;
import org.immutables.value.Value;

/** A status condition, shaped like {@code metav1.Condition}. */
@JsonClassDescription("A status condition, shaped like a Kubernetes metav1.Condition.")
@Value.Immutable
@JsonIgnoreProperties(ignoreUnknown = true)
@JsonInclude(JsonInclude.Include.NON_ABSENT)
@JsonSerialize(as = Condition.class)
@JsonDeserialize(as = Condition.class)
interface ConditionDef {
  String TRUE = "True";
  String FALSE = "False";
  String UNKNOWN = "Unknown";

  @JsonPropertyDescription("The condition's type, in CamelCase, for example DtypeAccepted.")
  @Required
  String type();

  @JsonPropertyDescription("The condition's status: True, False or Unknown.")
  @Required
  String status();

  @JsonPropertyDescription(
      "A CamelCase, machine-readable reason for the condition's last transition.")
  Optional<String> reason();

  @JsonPropertyDescription("A human-readable message with details about the last transition.")
  Optional<String> message();

  /** RFC 3339 time the status last changed. */
  @JsonPropertyDescription("When the condition last changed status, as an RFC 3339 timestamp.")
  Optional<String> lastTransitionTime();

  @JsonPropertyDescription("The metadata.generation the condition was set against.")
  Optional<Long> observedGeneration();

  @JsonIgnore
  default boolean isTrue() {
    return TRUE.equals(status());
  }
}
