package ai.gpustack.kvcache.spi;

import java.util.Optional;
import java.util.SortedSet;
import org.immutables.value.Value;

/** Whether one engine, at one version, accepts a dtype spelling, and what it does accept. */
@Value.Immutable
abstract class DtypeVerdictDef {
  public abstract String engine();

  public abstract String dtype();

  /** Which table was used, in words: {@code >=0.11.0 <0.18.0 (engine version 0.14.1)}. */
  public abstract String table();

  public abstract boolean accepted();

  /** The spellings the engine accepts at that version; empty when no table covers it. */
  @Value.NaturalOrder
  public abstract SortedSet<String> spellings();

  /** Where the spellings were read. */
  public abstract Optional<String> source();
}
