package ai.gpustack.kvcache.api;

import com.fasterxml.jackson.annotation.JsonClassDescription;
import com.fasterxml.jackson.annotation.JsonIgnoreProperties;
import com.fasterxml.jackson.annotation.JsonInclude;
import com.fasterxml.jackson.annotation.JsonPropertyDescription;
import com.fasterxml.jackson.databind.annotation.JsonDeserialize;
import com.fasterxml.jackson.databind.annotation.JsonSerialize;
import io.fabric8.generator.annotation.Required;
import org.immutables.value.Value;

/** What a deployment resolved through its Binding, echoed from the Binding's spec. */
@JsonClassDescription(
    "What a deployment resolved through its Binding, echoed from the Binding's spec.")
@Value.Immutable
@JsonIgnoreProperties(ignoreUnknown = true)
@JsonInclude(JsonInclude.Include.NON_ABSENT)
@JsonSerialize(as = KvCacheStatus.class)
@JsonDeserialize(as = KvCacheStatus.class)
interface KvCacheStatusDef {
  @JsonPropertyDescription("The name of the KVCachePoolBinding the deployment attaches through.")
  @Required
  String binding();

  @JsonPropertyDescription("The name of the KVCachePool the Binding draws on.")
  @Required
  String pool();

  @JsonPropertyDescription("The Binding's reuse domain: name, block size and dtype.")
  @Required
  ReuseDomain domain();
}
