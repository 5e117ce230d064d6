package ai.gpustack.kvcache.api;

import com.fasterxml.jackson.annotation.JsonClassDescription;
import com.fasterxml.jackson.annotation.JsonIgnoreProperties;
import com.fasterxml.jackson.annotation.JsonInclude;
import com.fasterxml.jackson.annotation.JsonPropertyDescription;
import com.fasterxml.jackson.databind.annotation.JsonDeserialize;
import com.fasterxml.jackson.databind.annotation.JsonSerialize;
import io.fabric8.generator.annotation.Required;
import org.immutables.value.Value;

/** A namespaced object's namespace and name. */
@JsonClassDescription("A namespaced object's namespace and name.")
@Value.Immutable
@JsonIgnoreProperties(ignoreUnknown = true)
@JsonInclude(JsonInclude.Include.NON_ABSENT)
@JsonSerialize(as = NamespacedName.class)
@JsonDeserialize(as = NamespacedName.class)
interface NamespacedNameDef {
  @JsonPropertyDescription("The object's namespace.")
  @Required
  @Value.Parameter
  String namespace();

  @JsonPropertyDescription("The object's name.")
  @Required
  @Value.Parameter
  String name();

  /** {@code namespace/name}, as people write it. */
  default String path() {
    return namespace() + "/" + name();
  }
}
