package ai.gpustack.kvcache.operator.migrate;

import ai.gpustack.kvcache.resources.ModelDeployment;
import java.util.Optional;

/** Whether a ModelDeployment the migration waits for is Ready, and if not, why, in words. */
final class Readiness {
  private Readiness() {}

  /** Ready at its current generation, and not being deleted. */
  static boolean ready(Optional<ModelDeployment> md) {
    return md.filter(d -> d.getStatus() != null)
        .filter(d -> d.getMetadata().getDeletionTimestamp() == null)
        .filter(d -> d.getStatus().phase().map("Ready"::equals).orElse(false))
        .filter(
            d ->
                d.getStatus()
                    .observedGeneration()
                    .map(g -> g.equals(d.getMetadata().getGeneration()))
                    .orElse(false))
        .isPresent();
  }

  static String why(Optional<ModelDeployment> md) {
    if (md.isEmpty()) {
      return "it is gone";
    }
    if (md.get().getStatus() == null) {
      return "the operator has not reported on it (is it running?)";
    }
    String phase = md.get().getStatus().phase().orElse("no phase");
    String conditions =
        md.get().getStatus().conditions().stream()
            .filter(c -> !"True".equals(c.status()))
            .map(
                c ->
                    c.type()
                        + "="
                        + c.status()
                        + " "
                        + c.reason().orElse("")
                        + ": "
                        + c.message().orElse(""))
            .reduce((a, b) -> a + "; " + b)
            .orElse("");
    return "phase " + phase + (conditions.isEmpty() ? "" : " (" + conditions + ")");
  }
}
