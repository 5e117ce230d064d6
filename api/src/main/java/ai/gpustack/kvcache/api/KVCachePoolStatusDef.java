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

/** What the operator observed of a pool. */
@JsonClassDescription("The observed state of a KVCachePool, written by the operator.")
@Value.Immutable
@JsonIgnoreProperties(ignoreUnknown = true)
@JsonInclude(JsonInclude.Include.NON_ABSENT)
@JsonSerialize(as = KVCachePoolStatus.class)
@JsonDeserialize(as = KVCachePoolStatus.class)
interface KVCachePoolStatusDef {
  @JsonPropertyDescription(
      "A summary of the pool's state: Ready; Degraded when the Bindings' quota ceilings add up to"
          + " more than spec.quota.total; Error when the backend is missing or names no client"
          + " endpoint.")
  Optional<String> phase();

  @JsonPropertyDescription("A human-readable explanation of the phase.")
  Optional<String> phaseMessage();

  /** The engine-facing master address, echoed from the backend; absent until published. */
  @JsonPropertyDescription(
      "The host:port of the Mooncake master engines connect to, echoed from the backend. Absent"
          + " until the backend publishes it.")
  Optional<String> clientEndpoint();

  @JsonPropertyDescription(
      "The reuse domains the Bindings on this pool declare, each with its Binding, block size and"
          + " dtype.")
  List<PoolDomain> domains();

  /** The Bindings holding this pool. */
  @JsonPropertyDescription("The KVCachePoolBindings that draw on this pool.")
  List<WorkloadRef> usedBy();

  @JsonPropertyDescription(
      "The latest observations of the pool's state: BackendResolved, and QuotaWithinTotal (False"
          + " with reason Oversubscribed when the Bindings' ceilings exceed spec.quota.total).")
  List<Condition> conditions();
}
