package ai.gpustack.kvcache.api;

import com.fasterxml.jackson.annotation.JsonIgnoreProperties;
import com.fasterxml.jackson.annotation.JsonInclude;
import com.fasterxml.jackson.databind.annotation.JsonDeserialize;
import com.fasterxml.jackson.databind.annotation.JsonSerialize;
import java.util.List;
import java.util.Optional;
import org.immutables.value.Value;

/** What the operator observed of a Binding, and which workloads hold it. */
@Value.Immutable
@JsonIgnoreProperties(ignoreUnknown = true)
@JsonInclude(JsonInclude.Include.NON_ABSENT)
@JsonSerialize(as = KVCachePoolBindingStatus.class)
@JsonDeserialize(as = KVCachePoolBindingStatus.class)
interface KVCachePoolBindingStatusDef {
  Optional<String> phase();

  Optional<String> phaseMessage();

  List<Condition> conditions();

  /** The workloads attached through this Binding; written by the workloads' own reconcilers. */
  List<WorkloadRef> usedBy();
}
