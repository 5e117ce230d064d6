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

/** What the operator observed of a Binding, and which workloads hold it. */
@JsonClassDescription("The observed state of a KVCachePoolBinding, and the workloads that hold it.")
@Value.Immutable
@JsonIgnoreProperties(ignoreUnknown = true)
@JsonInclude(JsonInclude.Include.NON_ABSENT)
@JsonSerialize(as = KVCachePoolBindingStatus.class)
@JsonDeserialize(as = KVCachePoolBindingStatus.class)
interface KVCachePoolBindingStatusDef {
  @JsonPropertyDescription(
      "A summary of the Binding's state: Provisioning until its pool exists and publishes a client"
          + " endpoint, then Ready; Deleting while a deleted Binding is still held by workloads.")
  Optional<String> phase();

  @JsonPropertyDescription("A human-readable explanation of the phase.")
  Optional<String> phaseMessage();

  @JsonPropertyDescription(
      "The latest observations of the Binding's state, such as DomainExclusive, and Releasable"
          + " (False with reason HeldByWorkloads while a deleted Binding is still in use).")
  List<Condition> conditions();

  /** The workloads attached through this Binding; written by the workloads' own reconcilers. */
  @JsonPropertyDescription(
      "The workloads attached through this Binding, written by their own reconcilers. A deleted"
          + " Binding is kept until no workload holds it.")
  List<WorkloadRef> usedBy();
}
