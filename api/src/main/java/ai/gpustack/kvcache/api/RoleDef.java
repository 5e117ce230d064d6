package ai.gpustack.kvcache.api;

import com.fasterxml.jackson.annotation.JsonClassDescription;
import com.fasterxml.jackson.annotation.JsonIgnore;
import com.fasterxml.jackson.annotation.JsonIgnoreProperties;
import com.fasterxml.jackson.annotation.JsonInclude;
import com.fasterxml.jackson.annotation.JsonPropertyDescription;
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
@JsonClassDescription(
    "One role of a ModelDeployment. Without command the operator renders the container's whole"
        + " command: the engine's base argv, the cache connector, the Binding's dtype, then"
        + " extraArgs. With command the role owns its argv and the operator adds nothing.")
@Value.Immutable
@JsonIgnoreProperties(ignoreUnknown = true)
@JsonInclude(JsonInclude.Include.NON_ABSENT)
@JsonSerialize(as = Role.class)
@JsonDeserialize(as = Role.class)
interface RoleDef {
  /** Bounds argv lists, which also bounds the cost of the CRD's CEL rules over them. */
  int MAX_ARGV = 256;

  @JsonPropertyDescription(
      "The role's name, a DNS-1123 label unique within the deployment. An identity field.")
  @Required
  @Pattern(Dns.LABEL_PATTERN)
  @Size(max = Dns.LABEL_MAX_LENGTH)
  String name();

  @JsonPropertyDescription(
      "The role's part in serving: Server (the default), Prefill or Decode. An identity field.")
  @Value.Default
  @Default("Server")
  default RoleKind kind() {
    return RoleKind.Server;
  }

  @JsonPropertyDescription("The number of Pods the role runs, 0 to 1024. Defaults to 1.")
  @Value.Default
  @Default("1")
  @Min(0)
  @Max(1024)
  default int replicas() {
    return 1;
  }

  @JsonPropertyDescription(
      "The container image. May be omitted when the engine names a default image.")
  Optional<String> image();

  /** The take-over tier: the role's whole argv. Empty means the operator renders it. */
  @JsonPropertyDescription(
      "The take-over tier: the container's whole command, at most 256 entries. The operator then"
          + " adds nothing, no connector and no dtype; empty means the operator renders it. An"
          + " identity field.")
  @JsonInclude(JsonInclude.Include.NON_EMPTY)
  @Size(max = MAX_ARGV)
  List<String> command();

  /** The append tier: placed after everything the operator renders. */
  @JsonPropertyDescription(
      "The append tier: arguments placed after everything the operator renders, at most 256. May"
          + " not name a flag the engine owns, nor --kv-cache-dtype when spec.kvCache is set and"
          + " the Setting model-deployment-kv-cache-dtype-owned is on; set command to own them.")
  @JsonInclude(JsonInclude.Include.NON_EMPTY)
  @Size(max = MAX_ARGV)
  List<String> extraArgs();

  @JsonPropertyDescription(
      "Environment variables of the role's container. May not set a variable the engine owns for"
          + " its cache connector (for example MOONCAKE_CONFIG_PATH); set command to own it.")
  @JsonInclude(JsonInclude.Include.NON_EMPTY)
  List<EnvVar> env();

  @JsonPropertyDescription(
      "The ports the container listens on; the first is the engine's serving port. Defaults to the"
          + " engine's default port, named http.")
  @JsonInclude(JsonInclude.Include.NON_EMPTY)
  List<ContainerPort> ports();

  @JsonPropertyDescription(
      "The compute the role's container asks for (requests and limits by resource name, for"
          + " example nvidia.com/gpu), so ResourceQuota counts its Pods.")
  Optional<RoleResources> resources();

  /** Whether the role took its argv over ({@code command} set), so the operator renders nothing. */
  @JsonIgnore
  default boolean isTakeOver() {
    return !command().isEmpty();
  }
}
