package ai.gpustack.kvcache.api;

import com.fasterxml.jackson.annotation.JsonClassDescription;
import com.fasterxml.jackson.annotation.JsonIgnoreProperties;
import com.fasterxml.jackson.annotation.JsonInclude;
import com.fasterxml.jackson.annotation.JsonPropertyDescription;
import com.fasterxml.jackson.databind.annotation.JsonDeserialize;
import com.fasterxml.jackson.databind.annotation.JsonSerialize;
import io.fabric8.generator.annotation.Required;
import org.immutables.value.Value;

/** A pool's declared capacity. */
@JsonClassDescription("A pool's declared capacity.")
@Value.Immutable
@JsonIgnoreProperties(ignoreUnknown = true)
@JsonInclude(JsonInclude.Include.NON_ABSENT)
@JsonSerialize(as = PoolQuota.class)
@JsonDeserialize(as = PoolQuota.class)
interface PoolQuotaDef {
  /** A Kubernetes quantity: the pool's own ceiling, which no single Binding may exceed. */
  @JsonPropertyDescription(
      "The pool's capacity in bytes, as a Kubernetes quantity (for example 64Gi). Required and"
          + " greater than 0; no single Binding's quota.ceiling may exceed it.")
  @Required
  @Value.Parameter
  String total();
}
