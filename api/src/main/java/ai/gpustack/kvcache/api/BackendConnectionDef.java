package ai.gpustack.kvcache.api;

import com.fasterxml.jackson.annotation.JsonClassDescription;
import com.fasterxml.jackson.annotation.JsonIgnoreProperties;
import com.fasterxml.jackson.annotation.JsonInclude;
import com.fasterxml.jackson.annotation.JsonPropertyDescription;
import com.fasterxml.jackson.databind.annotation.JsonDeserialize;
import com.fasterxml.jackson.databind.annotation.JsonSerialize;
import java.util.Optional;
import org.immutables.value.Value;

/** How a backend is reached. This project supports external masters only. */
@JsonClassDescription("How a backend is reached. Only external masters are supported.")
@Value.Immutable
@JsonIgnoreProperties(ignoreUnknown = true)
@JsonInclude(JsonInclude.Include.NON_ABSENT)
@JsonSerialize(as = BackendConnection.class)
@JsonDeserialize(as = BackendConnection.class)
interface BackendConnectionDef {
  @JsonPropertyDescription(
      "An existing Mooncake master the backend points at. Required: external masters are the only"
          + " supported connection.")
  Optional<ExternalConnection> external();
}
