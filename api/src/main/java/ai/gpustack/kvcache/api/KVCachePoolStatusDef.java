package ai.gpustack.kvcache.api;

import com.fasterxml.jackson.annotation.JsonIgnoreProperties;
import com.fasterxml.jackson.annotation.JsonInclude;
import com.fasterxml.jackson.databind.annotation.JsonDeserialize;
import com.fasterxml.jackson.databind.annotation.JsonSerialize;
import java.util.List;
import java.util.Optional;
import org.immutables.value.Value;

/** What the operator observed of a pool. */
@Value.Immutable
@JsonIgnoreProperties(ignoreUnknown = true)
@JsonInclude(JsonInclude.Include.NON_ABSENT)
@JsonSerialize(as = KVCachePoolStatus.class)
@JsonDeserialize(as = KVCachePoolStatus.class)
interface KVCachePoolStatusDef {
  Optional<String> phase();

  Optional<String> phaseMessage();

  /** The engine-facing master address, echoed from the backend; absent until published. */
  Optional<String> clientEndpoint();

  List<PoolDomain> domains();

  /** The Bindings holding this pool. */
  List<WorkloadRef> usedBy();

  List<Condition> conditions();
}
