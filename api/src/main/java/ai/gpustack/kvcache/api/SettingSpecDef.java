package ai.gpustack.kvcache.api;

import com.fasterxml.jackson.annotation.JsonClassDescription;
import com.fasterxml.jackson.annotation.JsonIgnoreProperties;
import com.fasterxml.jackson.annotation.JsonInclude;
import com.fasterxml.jackson.annotation.JsonPropertyDescription;
import com.fasterxml.jackson.databind.annotation.JsonDeserialize;
import com.fasterxml.jackson.databind.annotation.JsonSerialize;
import java.util.Optional;
import org.immutables.value.Value;

/** The value a person writes into a Setting; absent means the default. */
@JsonClassDescription("The value a person writes into a Setting; absent means the default.")
@Value.Immutable
@JsonIgnoreProperties(ignoreUnknown = true)
@JsonInclude(JsonInclude.Include.NON_ABSENT)
@JsonSerialize(as = SettingSpec.class)
@JsonDeserialize(as = SettingSpec.class)
interface SettingSpecDef {
  @JsonPropertyDescription(
      "The Setting's value, as a string. Must be a value the Setting accepts (a boolean, or one of"
          + " its listed values); absent means the default.")
  Optional<String> value();
}
