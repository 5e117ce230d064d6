package ai.gpustack.kvcache.operator.migrate;

import ai.gpustack.kvcache.operator.migrate.Step.Action;
import com.fasterxml.jackson.databind.JsonNode;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;

/** A plan being drawn up: its steps, numbered as they are added, and what they would meet. */
final class PlanDraft {
  private final List<Step> steps = new ArrayList<>();
  private final List<String> refusals = new ArrayList<>();
  private final List<String> warnings = new ArrayList<>();

  void step(
      Action action,
      String kind,
      String ns,
      String name,
      String summary,
      List<String> kubectl,
      Optional<JsonNode> manifest) {
    steps.add(new Step(steps.size() + 1, action, kind, ns, name, summary, kubectl, manifest));
  }

  /** {@code step} renumbered as the next. */
  void step(Step step) {
    step(
        step.action(),
        step.kind(),
        step.namespace(),
        step.name(),
        step.summary(),
        step.kubectl(),
        step.manifest());
  }

  void refuse(String refusal) {
    refusals.add(refusal);
  }

  void warn(List<String> more) {
    warnings.addAll(more);
  }

  List<Step> steps() {
    return steps;
  }

  List<String> refusals() {
    return refusals;
  }

  /** The warnings, each once. */
  List<String> warnings() {
    return warnings.stream().distinct().toList();
  }
}
