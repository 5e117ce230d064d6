package ai.gpustack.kvcache.api;

import com.fasterxml.jackson.annotation.JsonIgnoreProperties;
import com.fasterxml.jackson.annotation.JsonInclude;
import com.fasterxml.jackson.databind.annotation.JsonDeserialize;
import com.fasterxml.jackson.databind.annotation.JsonSerialize;
import java.util.Optional;
import org.immutables.value.Value;

/** The value in force, and what the setting does. */
@Value.Immutable
@JsonIgnoreProperties(ignoreUnknown = true)
@JsonInclude(JsonInclude.Include.NON_ABSENT)
@JsonSerialize(as = SettingStatus.class)
@JsonDeserialize(as = SettingStatus.class)
interface SettingStatusDef {
  Optional<String> value();

  Optional<String> description();

  @Value.Default
  default boolean editable() {
    return true;
  }
}
