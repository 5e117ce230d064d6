package ai.gpustack.kvcache.operator.preflight;

import com.fasterxml.jackson.annotation.JsonProperty;
import java.util.List;
import java.util.Map;

/**
 * What preflight found, in the order a person reads it: each Binding against the engines that use
 * it, the findings, and which replicas will roll.
 */
public record Report(
    String source,
    Map<String, String> settings,
    List<BindingCheck> bindings,
    List<Finding> findings,
    List<Rollout> rollouts) {

  /** One Binding: its dtype, and per engine (and version) of its users whether it is accepted. */
  public record BindingCheck(
      String namespace,
      String name,
      String dtype,
      List<EngineUse> engines,
      List<String> acceptedByAll) {
    public boolean breaks() {
      return engines.stream().anyMatch(e -> !e.accepts());
    }
  }

  /**
   * One engine at one version among a Binding's users; {@code accepted} is what it accepts, {@code
   * users} the deployments and workloads running it.
   */
  public record EngineUse(
      String engine,
      String version,
      boolean accepts,
      String format,
      List<String> accepted,
      List<String> users) {}

  /**
   * One ModelDeployment: its replicas, how many run now, and how many would be replaced when the
   * operator is upgraded (rendered as today's Settings say) or the ownership Setting is flipped.
   * {@code note} says why a count is not what it seems (held, no replicas in the input).
   */
  public record Rollout(
      String namespace,
      String name,
      int replicas,
      int running,
      int rollOnUpgrade,
      int rollOnSettingFlip,
      String note) {}

  @JsonProperty("breaking")
  public long breaking() {
    return findings.stream().filter(f -> f.severity() == Finding.Severity.BREAKS).count();
  }

  @JsonProperty("warnings")
  public long warnings() {
    return findings.stream().filter(f -> f.severity() == Finding.Severity.WARNING).count();
  }

  /** 0 when nothing will break or be refused, 1 otherwise. */
  @JsonProperty("exitCode")
  public int exitCode() {
    return breaking() > 0 ? 1 : 0;
  }
}
