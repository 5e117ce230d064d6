package ai.gpustack.kvcache.api;

import com.fasterxml.jackson.annotation.JsonIgnore;
import com.fasterxml.jackson.annotation.JsonIgnoreProperties;
import com.fasterxml.jackson.annotation.JsonInclude;
import com.fasterxml.jackson.databind.annotation.JsonDeserialize;
import com.fasterxml.jackson.databind.annotation.JsonSerialize;
import io.fabric8.generator.annotation.Required;
import java.util.Optional;
import org.immutables.value.Value;

/** A status condition, shaped like {@code metav1.Condition}. */
@Value.Immutable
@JsonIgnoreProperties(ignoreUnknown = true)
@JsonInclude(JsonInclude.Include.NON_ABSENT)
@JsonSerialize(as = Condition.class)
@JsonDeserialize(as = Condition.class)
interface ConditionDef {
  String TRUE = "True";
  String FALSE = "False";
  String UNKNOWN = "Unknown";

  @Required
  String type();

  @Required
  String status();

  Optional<String> reason();

  Optional<String> message();

  /** RFC 3339 time the status last changed. */
  Optional<String> lastTransitionTime();

  Optional<Long> observedGeneration();

  @JsonIgnore
  default boolean isTrue() {
    return TRUE.equals(status());
  }
}
