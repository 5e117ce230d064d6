package ai.gpustack.kvcache.api;

import com.fasterxml.jackson.annotation.JsonClassDescription;
import com.fasterxml.jackson.annotation.JsonIgnoreProperties;
import com.fasterxml.jackson.annotation.JsonInclude;
import com.fasterxml.jackson.annotation.JsonPropertyDescription;
import com.fasterxml.jackson.databind.annotation.JsonDeserialize;
import com.fasterxml.jackson.databind.annotation.JsonSerialize;
import io.fabric8.generator.annotation.Required;
import java.util.Comparator;
import org.immutables.value.Value;

/**
 * A workload that holds a Binding or a pool: {@code {kind, namespace, name}}. The namespace is
 * empty when the holder lives in the holder's own namespace.
 */
@JsonClassDescription("A workload that holds a Binding or a pool, as kind, namespace and name.")
@Value.Immutable
@JsonIgnoreProperties(ignoreUnknown = true)
@JsonInclude(JsonInclude.Include.NON_ABSENT)
@JsonSerialize(as = WorkloadRef.class)
@JsonDeserialize(as = WorkloadRef.class)
interface WorkloadRefDef {
  /** The order {@code status.usedBy} is kept in. */
  Comparator<WorkloadRef> ORDER =
      Comparator.comparing(WorkloadRef::kind)
          .thenComparing(WorkloadRef::namespace)
          .thenComparing(WorkloadRef::name);

  @JsonPropertyDescription("The holder's kind, for example ModelDeployment or KVCachePoolBinding.")
  @Required
  @Value.Parameter
  String kind();

  @JsonPropertyDescription(
      "The holder's namespace; empty when the holder is cluster-scoped or lives in the held"
          + " object's own namespace.")
  @Required
  @Value.Parameter
  String namespace();

  @JsonPropertyDescription("The holder's name.")
  @Required
  @Value.Parameter
  String name();

  /** {@code Kind/name} or {@code Kind/namespace/name}, as refusals and conditions name it. */
  default String display() {
    return kind() + "/" + (namespace().isEmpty() ? "" : namespace() + "/") + name();
  }
}
