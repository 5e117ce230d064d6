package ai.gpustack.kvcache.api;

import com.fasterxml.jackson.annotation.JsonClassDescription;
import com.fasterxml.jackson.annotation.JsonIgnoreProperties;
import com.fasterxml.jackson.annotation.JsonInclude;
import com.fasterxml.jackson.annotation.JsonPropertyDescription;
import com.fasterxml.jackson.databind.annotation.JsonDeserialize;
import com.fasterxml.jackson.databind.annotation.JsonSerialize;
import io.fabric8.generator.annotation.Required;
import org.immutables.value.Value;

/** The replicas of one role and whether the operator renders its argv. */
@JsonClassDescription("The replicas of one role and whether the operator renders its argv.")
@Value.Immutable
@JsonIgnoreProperties(ignoreUnknown = true)
@JsonInclude(JsonInclude.Include.NON_ABSENT)
@JsonSerialize(as = RoleStatus.class)
@JsonDeserialize(as = RoleStatus.class)
interface RoleStatusDef {
  @JsonPropertyDescription("The role's name.")
  @Required
  String name();

  @JsonPropertyDescription("The number of replicas the role asks for.")
  int replicas();

  @JsonPropertyDescription("The number of the role's Pods that are Ready.")
  int readyReplicas();

  /** Replicas whose pod-spec hash matches the current render. */
  @JsonPropertyDescription(
      "The number of the role's Pods whose pod-spec hash matches the current render.")
  int updatedReplicas();

  /** True for a take-over role ({@code command} set): the operator adds nothing to its argv. */
  @JsonPropertyDescription(
      "True for a take-over role (command set): the operator adds nothing to its argv.")
  boolean unmanaged();
}
