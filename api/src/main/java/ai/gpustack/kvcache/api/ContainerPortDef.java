package ai.gpustack.kvcache.api;

import com.fasterxml.jackson.annotation.JsonClassDescription;
import com.fasterxml.jackson.annotation.JsonIgnoreProperties;
import com.fasterxml.jackson.annotation.JsonInclude;
import com.fasterxml.jackson.annotation.JsonPropertyDescription;
import com.fasterxml.jackson.databind.annotation.JsonDeserialize;
import com.fasterxml.jackson.databind.annotation.JsonSerialize;
import io.fabric8.generator.annotation.Max;
import io.fabric8.generator.annotation.Min;
import io.fabric8.generator.annotation.Required;
import java.util.Optional;
import org.immutables.value.Value;

/** A port a role's container listens on. The first one is the engine's serving port. */
@JsonClassDescription(
    "A port a role's container listens on. The first one is the engine's serving port.")
@Value.Immutable
@JsonIgnoreProperties(ignoreUnknown = true)
@JsonInclude(JsonInclude.Include.NON_ABSENT)
@JsonSerialize(as = ContainerPort.class)
@JsonDeserialize(as = ContainerPort.class)
interface ContainerPortDef {
  @JsonPropertyDescription("An optional name for the port.")
  Optional<String> name();

  @JsonPropertyDescription("The port number, 1 to 65535.")
  @Required
  @Min(1)
  @Max(65535)
  int containerPort();
}
