package ai.gpustack.kvcache.spi;

import java.util.List;
import java.util.Optional;
import org.immutables.value.Value;

/** One option token as the engine's parser reads it. */
@Value.Immutable
abstract class ReadTokenDef {
  /** The token exactly as written, value included. */
  public abstract String written();

  /** The option part as written: before any {@code =}. */
  public abstract String spelling();

  /** The value after {@code =}, when written inline. */
  public abstract Optional<String> inlineValue();

  public abstract FlagReading reading();

  /** The flag it reads as, for {@link FlagReading#EXACT} and {@link FlagReading#ABBREVIATION}. */
  public abstract Optional<String> flag();

  /** Every flag an ambiguous prefix could be, in the parser's order. */
  public abstract List<String> candidates();

  /** Whether the parser reads this token as {@code flag}. */
  public boolean readsAs(String flag) {
    return flag().map(flag::equals).orElse(false);
  }

  /** Whether this is an ambiguous prefix one of whose candidates is {@code flag}. */
  public boolean couldBe(String flag) {
    return reading() == FlagReading.AMBIGUOUS && candidates().contains(flag);
  }
}
