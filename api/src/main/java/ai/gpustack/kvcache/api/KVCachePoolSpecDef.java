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
import org.immutables.value.Value;

/** A pool of KV cache capacity published by exactly one backend. */
@JsonClassDescription("A pool of KV cache capacity published by exactly one backend.")
@Value.Immutable
@JsonIgnoreProperties(ignoreUnknown = true)
@JsonInclude(JsonInclude.Include.NON_ABSENT)
@JsonSerialize(as = KVCachePoolSpec.class)
@JsonDeserialize(as = KVCachePoolSpec.class)
interface KVCachePoolSpecDef {
  /** Exactly one KVCacheBackend name; immutable. */
  @JsonPropertyDescription(
      "The name of the one KVCacheBackend this pool publishes; exactly one entry. Immutable: the"
          + " pool's domains and ledger live on that backend.")
  @Required
  @Size(min = 1, max = 1)
  @ValidationRule(
      value = "self == oldSelf",
      message = "backends is immutable: the pool's domains and ledger live on that backend",
      reason = "FieldValueForbidden")
  List<String> backends();

  @JsonPropertyDescription("The pool's declared capacity. Required.")
  @Required
  PoolQuota quota();
}
