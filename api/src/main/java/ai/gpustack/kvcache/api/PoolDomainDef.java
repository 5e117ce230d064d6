package ai.gpustack.kvcache.api;

import com.fasterxml.jackson.annotation.JsonClassDescription;
import com.fasterxml.jackson.annotation.JsonIgnoreProperties;
import com.fasterxml.jackson.annotation.JsonInclude;
import com.fasterxml.jackson.annotation.JsonPropertyDescription;
import com.fasterxml.jackson.databind.annotation.JsonDeserialize;
import com.fasterxml.jackson.databind.annotation.JsonSerialize;
import io.fabric8.generator.annotation.Required;
import org.immutables.value.Value;

/** One Binding's domain on a pool, echoed from the Binding. */
@JsonClassDescription("One Binding's reuse domain on a pool, echoed from the Binding.")
@Value.Immutable
@JsonIgnoreProperties(ignoreUnknown = true)
@JsonInclude(JsonInclude.Include.NON_ABSENT)
@JsonSerialize(as = PoolDomain.class)
@JsonDeserialize(as = PoolDomain.class)
interface PoolDomainDef {
  @JsonPropertyDescription("The domain's name, from the Binding's spec.domain.name.")
  @Required
  String name();

  @JsonPropertyDescription("The Binding that holds the domain.")
  @Required
  NamespacedName binding();

  @JsonPropertyDescription("Tokens per cache block, from the Binding's spec.domain.blockSize.")
  @Required
  int blockSize();

  @JsonPropertyDescription(
      "The KV-cache dtype every engine in the domain runs with, from the Binding's"
          + " spec.domain.dtype.")
  @Required
  String dtype();
}
