package ai.gpustack.kvcache.api;

import com.fasterxml.jackson.annotation.JsonIgnoreProperties;
import com.fasterxml.jackson.annotation.JsonInclude;
import com.fasterxml.jackson.databind.annotation.JsonDeserialize;
import com.fasterxml.jackson.databind.annotation.JsonSerialize;
import io.fabric8.generator.annotation.Required;
import java.util.Comparator;
import org.immutables.value.Value;

/**
 * A workload that holds a Binding or a pool: {@code {kind, namespace, name}}. The namespace is
 * empty when the holder lives in the holder's own namespace.
 */
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

  @Required
  @Value.Parameter
  String kind();

  @Required
  @Value.Parameter
  String namespace();

  @Required
  @Value.Parameter
  String name();

  /** {@code Kind/name} or {@code Kind/namespace/name}, as refusals and conditions name it. */
  default String display() {
    return kind() + "/" + (namespace().isEmpty() ? "" : namespace() + "/") + name();
  }
}
