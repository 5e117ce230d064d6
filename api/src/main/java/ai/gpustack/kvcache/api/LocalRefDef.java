package ai.gpustack.kvcache.api;

import com.fasterxml.jackson.annotation.JsonClassDescription;
import com.fasterxml.jackson.annotation.JsonIgnoreProperties;
import com.fasterxml.jackson.annotation.JsonInclude;
import com.fasterxml.jackson.annotation.JsonPropertyDescription;
import com.fasterxml.jackson.databind.annotation.JsonDeserialize;
import com.fasterxml.jackson.databind.annotation.JsonSerialize;
import io.fabric8.generator.annotation.Required;
import org.immutables.value.Value;

/** A reference by name to an object in the same namespace, or to a cluster-scoped one. */
@JsonClassDescription(
    "A reference by name to an object in the same namespace, or to a cluster-scoped object.")
@Value.Immutable
@JsonIgnoreProperties(ignoreUnknown = true)
@JsonInclude(JsonInclude.Include.NON_ABSENT)
@JsonSerialize(as = LocalRef.class)
@JsonDeserialize(as = LocalRef.class)
interface LocalRefDef {
  @JsonPropertyDescription("The referenced object's name.")
  @Required
  @Value.Parameter
  String name();
}
