package ai.gpustack.kvcache.api;

import com.fasterxml.jackson.annotation.JsonClassDescription;
import com.fasterxml.jackson.annotation.JsonIgnoreProperties;
import com.fasterxml.jackson.annotation.JsonInclude;
import com.fasterxml.jackson.annotation.JsonPropertyDescription;
import com.fasterxml.jackson.databind.annotation.JsonDeserialize;
import com.fasterxml.jackson.databind.annotation.JsonSerialize;
import io.fabric8.generator.annotation.Required;
import io.fabric8.generator.annotation.Size;
import io.fabric8.generator.annotation.ValidationRule;
import java.util.List;
import java.util.Optional;
import org.immutables.value.Value;

/**
 * What a ModelDeployment asks for: a model served by one engine in 1 to 10 roles, optionally
 * attached to a KV cache pool through a Binding.
 */
@JsonClassDescription(
    "What a ModelDeployment asks for: a model served by one engine in 1 to 10 roles, optionally"
        + " attached to a KV cache pool through a Binding.")
@Value.Immutable
@JsonIgnoreProperties(ignoreUnknown = true)
@JsonInclude(JsonInclude.Include.NON_ABSENT)
@JsonSerialize(as = ModelDeploymentSpec.class)
@JsonDeserialize(as = ModelDeploymentSpec.class)
@ValidationRule(
    value = "has(self.kvCache) == has(oldSelf.kvCache)",
    message =
        "kvCache is an identity field: a different value describes a different deployment, which is created rather than edited",
    reason = "FieldValueForbidden")
@ValidationRule(
    value =
        "self.roles.size() == oldSelf.roles.size() && oldSelf.roles.all(o, self.roles.exists(r,"
            + " r.name == o.name && r.kind == o.kind"
            + " && (has(r.command) ? r.command : []) == (has(o.command) ? o.command : [])))",
    message =
        "the role set and each role's name, kind and command are identity fields: a different value describes a different deployment, which is created rather than edited",
    reason = "FieldValueForbidden")
interface ModelDeploymentSpecDef {
  int MAX_ROLES = 10;

  @JsonPropertyDescription(
      "The model the deployment serves. An identity field: a different value describes a different"
          + " deployment, which is created rather than edited.")
  @Required
  ModelRef model();

  @JsonPropertyDescription("The engine every role runs, and optionally its version.")
  @Required
  EngineRef engine();

  @JsonPropertyDescription(
      "Attaches every role to a KV cache pool through a KVCachePoolBinding in this namespace."
          + " Optional. An identity field: it cannot be added, removed or changed after creation.")
  @ValidationRule(
      value = "self == oldSelf",
      message =
          "kvCache is an identity field: a different value describes a different deployment, which is created rather than edited",
      reason = "FieldValueForbidden")
  Optional<KvCacheRef> kvCache();

  @JsonPropertyDescription(
      "The deployment's roles, 1 to 10. The role set and each role's name, kind and command are"
          + " identity fields.")
  @Required
  @Size(min = 1, max = MAX_ROLES)
  List<Role> roles();
}
