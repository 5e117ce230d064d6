package ai.gpustack.kvcache.api;

import com.fasterxml.jackson.annotation.JsonIgnoreProperties;
import com.fasterxml.jackson.annotation.JsonInclude;
import com.fasterxml.jackson.databind.annotation.JsonDeserialize;
import com.fasterxml.jackson.databind.annotation.JsonSerialize;
import java.util.List;
import java.util.Optional;
import org.immutables.value.Value;

/** What the operator observed of a backend. */
@Value.Immutable
@JsonIgnoreProperties(ignoreUnknown = true)
@JsonInclude(JsonInclude.Include.NON_ABSENT)
@JsonSerialize(as = KVCacheBackendStatus.class)
@JsonDeserialize(as = KVCacheBackendStatus.class)
interface KVCacheBackendStatusDef {
  Optional<String> phase();

  Optional<String> clientEndpoint();

  /** The pools publishing this backend. */
  List<WorkloadRef> usedBy();

  List<Condition> conditions();
}
