package ai.gpustack.kvcache.operator.preflight;

import com.fasterxml.jackson.annotation.JsonInclude;

/**
 * One thing preflight found. {@code check} is a stable identifier scripts may match on; {@code
 * detail} is the verdict the webhook itself would give, where one applies.
 */
@JsonInclude(JsonInclude.Include.NON_EMPTY)
public record Finding(
    Severity severity, String check, String object, String message, String detail) {

  public enum Severity {
    /** Something will break or be refused: preflight exits 1. */
    BREAKS,
    /** Worth knowing before upgrading; nothing fails because of it. */
    WARNING;

    @com.fasterxml.jackson.annotation.JsonValue
    String json() {
      return name().toLowerCase(java.util.Locale.ROOT);
    }
  }

  static Finding breaks(String check, String object, String message, String detail) {
    return new Finding(Severity.BREAKS, check, object, message, detail);
  }

  static Finding warning(String check, String object, String message) {
    return new Finding(Severity.WARNING, check, object, message, "");
  }
}
