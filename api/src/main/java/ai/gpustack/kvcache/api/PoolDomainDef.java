package ai.gpustack.kvcache.api;

import com.fasterxml.jackson.annotation.JsonIgnoreProperties;
import com.fasterxml.jackson.annotation.JsonInclude;
import com.fasterxml.jackson.databind.annotation.JsonDeserialize;
import com.fasterxml.jackson.databind.annotation.JsonSerialize;
import io.fabric8.generator.annotation.Required;
import org.immutables.value.Value;

/** One Binding's domain on a pool, echoed from the Binding. */
@Value.Immutable
@JsonIgnoreProperties(ignoreUnknown = true)
@JsonInclude(JsonInclude.Include.NON_ABSENT)
@JsonSerialize(as = PoolDomain.class)
@JsonDeserialize(as = PoolDomain.class)
interface PoolDomainDef {
  @Required
  String name();

  @Required
  NamespacedName binding();

  @Required
  int blockSize();

  @Required
  String dtype();
}
