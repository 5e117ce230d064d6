package ai.gpustack.kvcache.api;

import com.fasterxml.jackson.annotation.JsonClassDescription;
import com.fasterxml.jackson.annotation.JsonIgnoreProperties;
import com.fasterxml.jackson.annotation.JsonInclude;
import com.fasterxml.jackson.annotation.JsonPropertyDescription;
import com.fasterxml.jackson.databind.annotation.JsonDeserialize;
import com.fasterxml.jackson.databind.annotation.JsonSerialize;
import java.util.Optional;
import org.immutables.value.Value;

/** The value in force, and what the setting does. */
@JsonClassDescription("The value in force, and what the Setting does.")
@Value.Immutable
@JsonIgnoreProperties(ignoreUnknown = true)
@JsonInclude(JsonInclude.Include.NON_ABSENT)
@JsonSerialize(as = SettingStatus.class)
@JsonDeserialize(as = SettingStatus.class)
interface SettingStatusDef {
  @JsonPropertyDescription(
      "The value in force: spec.value, or the Setting's default when spec.value is absent.")
  Optional<String> value();

  @JsonPropertyDescription("What the Setting does and the values it takes.")
  Optional<String> description();

  @JsonPropertyDescription("Whether people may change spec.value. Defaults to true.")
  @Value.Default
  default boolean editable() {
    return true;
  }
}
