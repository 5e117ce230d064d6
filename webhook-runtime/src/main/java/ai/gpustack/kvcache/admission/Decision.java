package ai.gpustack.kvcache.admission;

import ai.gpustack.kvcache.api.Problem;
import ai.gpustack.kvcache.api.Problems;
import ai.gpustack.kvcache.api.ProblemsException;
import java.util.List;
import java.util.Optional;

/**
 * A rule's answer: allowed (possibly with a JSON Patch) or refused with a status code, a message
 * and the problems behind it; warnings either way. Immutable.
 */
public record Decision(
    boolean allowed,
    int code,
    String message,
    List<Problem> problems,
    List<String> warnings,
    Optional<Patch> patch) {
  public Decision {
    problems = List.copyOf(problems);
    warnings = List.copyOf(warnings);
  }

  public static Decision allow(List<String> warnings) {
    return new Decision(true, 200, "", List.of(), warnings, Optional.empty());
  }

  public static Decision patch(Patch patch, List<String> warnings) {
    return new Decision(true, 200, "", List.of(), warnings, Optional.of(patch));
  }

  /** Refused; warnings are dropped, as the API server drops them with a refusal. */
  public static Decision deny(int code, String message) {
    return new Decision(false, code, message, List.of(), List.of(), Optional.empty());
  }

  /**
   * Refused with every problem at once, worded as the API server words an invalid object ({@code
   * <subject> is invalid: [...]}), or allowed with the warnings when there is none.
   */
  public static Decision of(String subject, Problems problems, List<String> warnings) {
    if (problems.isEmpty()) {
      return allow(warnings);
    }
    return new Decision(
        false,
        403,
        new ProblemsException(subject, problems.list()).getMessage(),
        problems.list(),
        List.of(),
        Optional.empty());
  }

  /** The reasons of the problems that name one, in order. */
  public List<String> reasons() {
    return problems.stream().flatMap(p -> p.reason().stream()).toList();
  }
}
