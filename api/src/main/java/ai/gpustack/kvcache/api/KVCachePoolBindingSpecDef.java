package ai.gpustack.kvcache.api;

import com.fasterxml.jackson.annotation.JsonClassDescription;
import com.fasterxml.jackson.annotation.JsonIgnoreProperties;
import com.fasterxml.jackson.annotation.JsonInclude;
import com.fasterxml.jackson.annotation.JsonPropertyDescription;
import com.fasterxml.jackson.databind.annotation.JsonDeserialize;
import com.fasterxml.jackson.databind.annotation.JsonSerialize;
import io.fabric8.generator.annotation.Required;
import io.fabric8.generator.annotation.ValidationRule;
import org.immutables.value.Value;

/**
 * Grants a namespace a reuse domain on a pool and declares the KV-cache dtype every engine attached
 * through it runs with. {@code poolRef} and every field of {@code domain} are immutable.
 */
@JsonClassDescription(
    "Grants a namespace a reuse domain on a pool and declares the KV-cache dtype every engine"
        + " attached through it runs with. poolRef and every field of domain are immutable.")
@Value.Immutable
@JsonIgnoreProperties(ignoreUnknown = true)
@JsonInclude(JsonInclude.Include.NON_ABSENT)
@JsonSerialize(as = KVCachePoolBindingSpec.class)
@JsonDeserialize(as = KVCachePoolBindingSpec.class)
interface KVCachePoolBindingSpecDef {
  @JsonPropertyDescription(
      "The KVCachePool this Binding draws on. Immutable: the domain's blocks and quota live on"
          + " that pool; create another Binding to use another pool.")
  @Required
  @ValidationRule(
      value = "self == oldSelf",
      message =
          "poolRef is immutable: the domain's blocks and quota live on that pool; create another"
              + " Binding to use another pool",
      reason = "FieldValueForbidden")
  LocalRef poolRef();

  @JsonPropertyDescription(
      "The reuse domain this Binding claims on the pool's backend, with its block size and dtype."
          + " Every field is immutable.")
  @Required
  ReuseDomain domain();

  @JsonPropertyDescription("How much of the pool this Binding asks for. Required.")
  @Required
  BindingQuota quota();
}
