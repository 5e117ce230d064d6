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

/** A KV cache store that pools publish. */
@JsonClassDescription(
    "A KV cache store that pools publish. Only external backends, an existing Mooncake master, are"
        + " supported.")
@Value.Immutable
@JsonIgnoreProperties(ignoreUnknown = true)
@JsonInclude(JsonInclude.Include.NON_ABSENT)
@JsonSerialize(as = KVCacheBackendSpec.class)
@JsonDeserialize(as = KVCacheBackendSpec.class)
interface KVCacheBackendSpecDef {
  @JsonPropertyDescription(
      "How the backend is reached. Required; set connection.external to the existing Mooncake"
          + " master.")
  @Required
  BackendConnection connection();

  /** Whether the master keeps one ledger per reuse domain (tenant); default true. */
  @JsonPropertyDescription(
      "Whether the master keeps a separate ledger per reuse domain (tenant), so each Binding's"
          + " domain is isolated. Defaults to true.")
  @Value.Default
  @Default("true")
  default boolean multiTenancy() {
    return true;
  }
}
