package ai.gpustack.kvcache.api;

import com.fasterxml.jackson.annotation.JsonClassDescription;
import com.fasterxml.jackson.annotation.JsonIgnoreProperties;
import com.fasterxml.jackson.annotation.JsonInclude;
import com.fasterxml.jackson.annotation.JsonPropertyDescription;
import com.fasterxml.jackson.databind.annotation.JsonDeserialize;
import com.fasterxml.jackson.databind.annotation.JsonSerialize;
import java.util.Map;
import org.immutables.value.Value;

/**
 * The compute a role's container asks for, by resource name ({@code cpu}, {@code memory}, {@code
 * nvidia.com/gpu}) and quantity, rendered as the container's {@code resources}, so ResourceQuota
 * counts the operator's Pods and the scheduler places them. Immutable; maps are never null.
 */
@JsonClassDescription(
    "The compute a role's container asks for, rendered as the container's resources so"
        + " ResourceQuota counts the Pods and the scheduler places them.")
@Value.Immutable
@JsonIgnoreProperties(ignoreUnknown = true)
@JsonInclude(JsonInclude.Include.NON_EMPTY)
@JsonSerialize(as = RoleResources.class)
@JsonDeserialize(as = RoleResources.class)
interface RoleResourcesDef {
  @JsonPropertyDescription(
      "What the container is guaranteed, by resource name: quantities such as 8 (cpu), 64Gi"
          + " (memory), 1 (nvidia.com/gpu).")
  Map<String, String> requests();

  @JsonPropertyDescription(
      "The most the container may use, by resource name. An extended resource such as"
          + " nvidia.com/gpu is never overcommitted: its limit and request, when both are given,"
          + " must be equal.")
  Map<String, String> limits();
}
