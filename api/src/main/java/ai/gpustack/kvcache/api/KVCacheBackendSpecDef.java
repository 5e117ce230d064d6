package ai.gpustack.kvcache.api;

import com.fasterxml.jackson.annotation.JsonIgnoreProperties;
import com.fasterxml.jackson.annotation.JsonInclude;
import com.fasterxml.jackson.databind.annotation.JsonDeserialize;
import com.fasterxml.jackson.databind.annotation.JsonSerialize;
import io.fabric8.generator.annotation.Default;
import io.fabric8.generator.annotation.Required;
import org.immutables.value.Value;

/** A KV cache store that pools publish. */
@Value.Immutable
@JsonIgnoreProperties(ignoreUnknown = true)
@JsonInclude(JsonInclude.Include.NON_ABSENT)
@JsonSerialize(as = KVCacheBackendSpec.class)
@JsonDeserialize(as = KVCacheBackendSpec.class)
interface KVCacheBackendSpecDef {
  @Required
  BackendConnection connection();

  /** Whether the master keeps one ledger per reuse domain (tenant); default true. */
  @Value.Default
  @Default("true")
  default boolean multiTenancy() {
    return true;
  }
}
