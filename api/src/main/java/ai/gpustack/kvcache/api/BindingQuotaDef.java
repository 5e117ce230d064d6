package ai.gpustack.kvcache.api;

import com.fasterxml.jackson.annotation.JsonClassDescription;
import com.fasterxml.jackson.annotation.JsonIgnoreProperties;
import com.fasterxml.jackson.annotation.JsonInclude;
import com.fasterxml.jackson.annotation.JsonPropertyDescription;
import com.fasterxml.jackson.databind.annotation.JsonDeserialize;
import com.fasterxml.jackson.databind.annotation.JsonSerialize;
import io.fabric8.generator.annotation.Required;
import org.immutables.value.Value;

/** How much of a pool a Binding asks for. */
@JsonClassDescription("How much of a pool a Binding asks for.")
@Value.Immutable
@JsonIgnoreProperties(ignoreUnknown = true)
@JsonInclude(JsonInclude.Include.NON_ABSENT)
@JsonSerialize(as = BindingQuota.class)
@JsonDeserialize(as = BindingQuota.class)
interface BindingQuotaDef {
  /** A Kubernetes quantity, greater than 0; a request, not a grant. */
  @JsonPropertyDescription(
      "The share of the pool this Binding asks for, in bytes, as a Kubernetes quantity (for"
          + " example 8Gi); a request, not a grant. Required, greater than 0, and at most the"
          + " pool's spec.quota.total.")
  @Required
  @Value.Parameter
  String ceiling();
}
