package ai.gpustack.kvcache.api;

import java.util.Locale;
import org.immutables.value.Value;

/**
 * A KV-cache element type exactly as the engine spells it ({@code bfloat16}, {@code fp8_e4m3}):
 * non-empty, lowercase, at most {@value #MAX_LENGTH} characters. The set of spellings is
 * deliberately not enumerated here; which engine accepts which spelling is the engine module's
 * business.
 *
 * <p>{@code Dtype.of("BFloat16")} throws a {@link ProblemsException} quoting the value.
 */
@Value.Immutable
abstract class DtypeDef {
  /** The longest spelling a Binding may declare. */
  public static final int MAX_LENGTH = 32;

  /** The spelling that lets each engine resolve its own dtype from the model it loads. */
  public static final String AUTO = "auto";

  @Value.Parameter
  public abstract String value();

  @Value.Check
  void check() {
    Problems.check("dtype " + Quoting.quote(value()), p -> check(value(), "dtype", p));
  }

  /** Adds the problems of {@code raw} as a dtype at {@code field} to {@code problems}. */
  public static void check(String raw, String field, Problems problems) {
    if (raw == null || raw.isEmpty()) {
      problems.required(
          field,
          "the element type the cached tensors carry, spelled as the engine reads it"
              + " (for example bfloat16); every engine attached through the Binding is started"
              + " with it");
    } else if (!raw.equals(raw.toLowerCase(Locale.ROOT))) {
      problems.invalid(
          field,
          raw,
          "must be lowercase ("
              + Quoting.quote(raw.toLowerCase(Locale.ROOT))
              + "): engines match the spelling exactly, and two spellings of one type would read"
              + " as two types");
    } else if (raw.length() > MAX_LENGTH) {
      problems.invalid(
          field,
          raw,
          "must be no more than " + MAX_LENGTH + " characters (it has " + raw.length() + ")");
    }
  }

  @Override
  public String toString() {
    return value();
  }
}
