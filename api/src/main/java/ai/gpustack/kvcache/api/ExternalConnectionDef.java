package ai.gpustack.kvcache.api;

import com.fasterxml.jackson.annotation.JsonClassDescription;
import com.fasterxml.jackson.annotation.JsonIgnoreProperties;
import com.fasterxml.jackson.annotation.JsonInclude;
import com.fasterxml.jackson.annotation.JsonPropertyDescription;
import com.fasterxml.jackson.databind.annotation.JsonDeserialize;
import com.fasterxml.jackson.databind.annotation.JsonSerialize;
import io.fabric8.generator.annotation.Required;
import org.immutables.value.Value;

/** An existing Mooncake master the backend points at. */
@JsonClassDescription("An existing Mooncake master that the backend points at.")
@Value.Immutable
@JsonIgnoreProperties(ignoreUnknown = true)
@JsonInclude(JsonInclude.Include.NON_ABSENT)
@JsonSerialize(as = ExternalConnection.class)
@JsonDeserialize(as = ExternalConnection.class)
interface ExternalConnectionDef {
  /** {@code host:port} of the Mooncake master engines connect to. */
  @JsonPropertyDescription(
      "The address engines connect to the Mooncake master at, as host:port: a DNS name, an IPv4"
          + " address or a bracketed IPv6 address, and a port from 1 to 65535. Required.")
  @Required
  @Value.Parameter
  String clientEndpoint();
}
