package ai.gpustack.kvcache.api;

import com.fasterxml.jackson.annotation.JsonIgnoreProperties;
import com.fasterxml.jackson.annotation.JsonInclude;
import com.fasterxml.jackson.databind.annotation.JsonDeserialize;
import com.fasterxml.jackson.databind.annotation.JsonSerialize;
import java.util.List;
import java.util.Optional;
import org.immutables.value.Value;

/** What the operator observed of a ModelDeployment. */
@Value.Immutable
@JsonIgnoreProperties(ignoreUnknown = true)
@JsonInclude(JsonInclude.Include.NON_ABSENT)
@JsonSerialize(as = ModelDeploymentStatus.class)
@JsonDeserialize(as = ModelDeploymentStatus.class)
interface ModelDeploymentStatusDef {
  Optional<Long> observedGeneration();

  Optional<String> phase();

  Optional<KvCacheStatus> kvCache();

  List<RoleStatus> roles();

  List<Condition> conditions();
}
