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

/** What the operator observed of a ModelDeployment. */
@JsonClassDescription("The observed state of a ModelDeployment, written by the operator.")
@Value.Immutable
@JsonIgnoreProperties(ignoreUnknown = true)
@JsonInclude(JsonInclude.Include.NON_ABSENT)
@JsonSerialize(as = ModelDeploymentStatus.class)
@JsonDeserialize(as = ModelDeploymentStatus.class)
interface ModelDeploymentStatusDef {
  @JsonPropertyDescription("The metadata.generation the operator last acted on.")
  Optional<Long> observedGeneration();

  @JsonPropertyDescription(
      "A summary of the deployment's state: Progressing while replicas roll out, Ready when all"
          + " are current, Held when replicas keep their last good render (see conditions), Failed"
          + " when it cannot be rendered.")
  Optional<String> phase();

  @JsonPropertyDescription(
      "The Binding, pool and reuse domain the deployment attaches to through spec.kvCache, echoed"
          + " from the Binding.")
  Optional<KvCacheStatus> kvCache();

  @JsonPropertyDescription("The replicas of each role.")
  List<RoleStatus> roles();

  @JsonPropertyDescription(
      "The latest observations, such as DomainRegistered, CacheAttached and DtypeAccepted (False"
          + " with reason SpellingRejectedByEngine when the engine rejects the Binding's dtype).")
  List<Condition> conditions();
}
