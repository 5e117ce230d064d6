package ai.gpustack.kvcache.api;

import com.fasterxml.jackson.annotation.JsonIgnoreProperties;
import com.fasterxml.jackson.annotation.JsonInclude;
import com.fasterxml.jackson.databind.annotation.JsonDeserialize;
import com.fasterxml.jackson.databind.annotation.JsonSerialize;
import io.fabric8.generator.annotation.Max;
import io.fabric8.generator.annotation.Min;
import io.fabric8.generator.annotation.Required;
import java.util.Optional;
import org.immutables.value.Value;

/** A port a role's container listens on. The first one is the engine's serving port. */
@Value.Immutable
@JsonIgnoreProperties(ignoreUnknown = true)
@JsonInclude(JsonInclude.Include.NON_ABSENT)
@JsonSerialize(as = ContainerPort.class)
@JsonDeserialize(as = ContainerPort.class)
interface ContainerPortDef {
  Optional<String> name();

  @Required
  @Min(1)
  @Max(65535)
  int containerPort();
}
