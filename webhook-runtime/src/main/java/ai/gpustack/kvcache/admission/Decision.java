package ai.gpustack.kvcache.admission;

import java.util.List;
import java.util.Optional;

/**
 * A handler's answer: allowed (possibly with a JSON Patch) or refused with a status code and a
 * message; warnings either way.
 */
public record Decision(
    boolean allowed, int code, String message, List<String> warnings, Optional<Patch> patch) {
  public Decision {
    warnings = List.copyOf(warnings);
  }

  public static Decision allow(List<String> warnings) {
    return new Decision(true, 200, "", warnings, Optional.empty());
  }

  public static Decision patch(Patch patch, List<String> warnings) {
    return new Decision(true, 200, "", warnings, Optional.of(patch));
  }

  /** Refused; warnings are dropped, as the API server drops them with a refusal. */
  public static Decision deny(int code, String message) {
    return new Decision(false, code, message, List.of(), Optional.empty());
  }
}
