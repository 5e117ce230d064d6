package ai.gpustack.kvcache.api;

import com.fasterxml.jackson.annotation.JsonIgnore;
import com.fasterxml.jackson.annotation.JsonIgnoreProperties;
import com.fasterxml.jackson.annotation.JsonInclude;
import com.fasterxml.jackson.databind.annotation.JsonDeserialize;
import com.fasterxml.jackson.databind.annotation.JsonSerialize;
import io.fabric8.generator.annotation.Default;
import io.fabric8.generator.annotation.Max;
import io.fabric8.generator.annotation.Min;
import io.fabric8.generator.annotation.Pattern;
import io.fabric8.generator.annotation.Required;
import io.fabric8.generator.annotation.Size;
import java.util.List;
import java.util.Optional;
import org.immutables.value.Value;

/**
 * One role of a ModelDeployment. Without {@code command} the operator owns the role's whole argv
 * and folds every argument into the container's {@code command}: the engine's base argv, the cache
 * connector, the Binding's dtype, then {@code extraArgs}. With {@code command} the role takes its
 * argv over and the operator adds nothing.
 */
@Value.Immutable
@JsonIgnoreProperties(ignoreUnknown = true)
@JsonInclude(JsonInclude.Include.NON_ABSENT)
@JsonSerialize(as = Role.class)
@JsonDeserialize(as = Role.class)
interface RoleDef {
  /** Bounds argv lists, which also bounds the cost of the CRD's CEL rules over them. */
  int MAX_ARGV = 256;

  @Required
  @Pattern(Dns.LABEL_PATTERN)
  @Size(max = Dns.LABEL_MAX_LENGTH)
  String name();

  @Value.Default
  @Default("Server")
  default RoleKind kind() {
    return RoleKind.Server;
  }

  @Value.Default
  @Default("1")
  @Min(0)
  @Max(1024)
  default int replicas() {
    return 1;
  }

  Optional<String> image();

  /** The take-over tier: the role's whole argv. Empty means the operator renders it. */
  @JsonInclude(JsonInclude.Include.NON_EMPTY)
  @Size(max = MAX_ARGV)
  List<String> command();

  /** The append tier: placed after everything the operator renders. */
  @JsonInclude(JsonInclude.Include.NON_EMPTY)
  @Size(max = MAX_ARGV)
  List<String> extraArgs();

  @JsonInclude(JsonInclude.Include.NON_EMPTY)
  List<EnvVar> env();

  @JsonInclude(JsonInclude.Include.NON_EMPTY)
  List<ContainerPort> ports();

  /** Whether the role took its argv over ({@code command} set), so the operator renders nothing. */
  @JsonIgnore
  default boolean isTakeOver() {
    return !command().isEmpty();
  }
}
