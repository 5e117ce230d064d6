package ai.gpustack.kvcache.api;

import com.fasterxml.jackson.annotation.JsonClassDescription;
import com.fasterxml.jackson.annotation.JsonIgnoreProperties;
import com.fasterxml.jackson.annotation.JsonInclude;
import com.fasterxml.jackson.annotation.JsonPropertyDescription;
import com.fasterxml.jackson.databind.annotation.JsonDeserialize;
import com.fasterxml.jackson.databind.annotation.JsonSerialize;
import io.fabric8.generator.annotation.Default;
import io.fabric8.generator.annotation.Required;
import org.immutables.value.Value;

/**
 * A deployment's attachment to a KV cache pool, through a KVCachePoolBinding in its own namespace.
 * The whole block is an identity field: re-pointing it describes another deployment.
 */
@JsonClassDescription(
    "A deployment's attachment to a KV cache pool, through a KVCachePoolBinding in its own"
        + " namespace. The whole block is an identity field.")
@Value.Immutable
@JsonIgnoreProperties(ignoreUnknown = true)
@JsonInclude(JsonInclude.Include.NON_ABSENT)
@JsonSerialize(as = KvCacheRef.class)
@JsonDeserialize(as = KvCacheRef.class)
interface KvCacheRefDef {
  String MOONCAKE = "Mooncake";

  /** The KVCachePoolBinding, in the deployment's namespace. */
  @JsonPropertyDescription(
      "The KVCachePoolBinding (not the pool) in the deployment's namespace whose domain and dtype"
          + " every role attaches with. Required.")
  @Required
  LocalRef poolRef();

  @JsonPropertyDescription(
      "The cache connector the engines attach with. Defaults to Mooncake, the only connector.")
  @Value.Default
  @Default(MOONCAKE)
  default String connector() {
    return MOONCAKE;
  }
}
