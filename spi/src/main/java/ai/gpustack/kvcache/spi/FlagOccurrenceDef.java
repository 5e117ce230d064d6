package ai.gpustack.kvcache.spi;

import java.util.Optional;
import org.immutables.value.Value;

/** Where in an argv a flag is passed, in any spelling the engine reads as it. */
@Value.Immutable
abstract class FlagOccurrenceDef {
  /** The index of the option token in the argv. */
  public abstract int index();

  /** The flag looked for, canonical. */
  public abstract String flag();

  public abstract ReadToken token();

  /** The value the parser takes: inline, or the next token; absent when none follows. */
  public abstract Optional<String> value();

  public boolean ambiguous() {
    return token().reading() == FlagReading.AMBIGUOUS;
  }

  /**
   * The spelling as written and, where the engine reads it otherwise, how: {@code --kv_cache_dtype,
   * which engine "vLLM" reads as --kv-cache-dtype}.
   */
  public String describe(String engineId) {
    String spelling = token().spelling();
    if (ambiguous()) {
      return spelling
          + ", which engine \""
          + engineId
          + "\" cannot resolve: it could be "
          + String.join(", ", new java.util.TreeSet<>(token().candidates()))
          + " (an ambiguous prefix: the engine exits on it)";
    }
    if (spelling.equals(flag())) {
      return spelling;
    }
    return spelling + ", which engine \"" + engineId + "\" reads as " + flag();
  }
}
