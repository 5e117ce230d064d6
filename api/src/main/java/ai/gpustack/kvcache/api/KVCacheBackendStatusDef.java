package ai.gpustack.kvcache.api;

import com.fasterxml.jackson.annotation.JsonClassDescription;
import com.fasterxml.jackson.annotation.JsonIgnoreProperties;
import com.fasterxml.jackson.annotation.JsonInclude;
import com.fasterxml.jackson.annotation.JsonPropertyDescription;
import com.fasterxml.jackson.databind.annotation.JsonDeserialize;
import com.fasterxml.jackson.databind.annotation.JsonSerialize;
import java.util.List;
import java.util.Optional;
import org.immutables.value.Value;

/** What the operator observed of a backend. */
@JsonClassDescription("The observed state of a KVCacheBackend, written by the operator.")
@Value.Immutable
@JsonIgnoreProperties(ignoreUnknown = true)
@JsonInclude(JsonInclude.Include.NON_ABSENT)
@JsonSerialize(as = KVCacheBackendStatus.class)
@JsonDeserialize(as = KVCacheBackendStatus.class)
interface KVCacheBackendStatusDef {
  @JsonPropertyDescription(
      "A summary of the backend's state: Ready when it names a client endpoint, Error otherwise.")
  Optional<String> phase();

  @JsonPropertyDescription(
      "The host:port engines connect to, echoed from spec.connection.external.clientEndpoint.")
  Optional<String> clientEndpoint();

  /** The pools publishing this backend. */
  @JsonPropertyDescription("The KVCachePools that publish this backend.")
  List<WorkloadRef> usedBy();

  @JsonPropertyDescription("The latest observations of the backend's state.")
  List<Condition> conditions();
}
