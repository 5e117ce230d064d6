package ai.gpustack.kvcache.spi;

import java.util.List;
import java.util.Optional;
import org.immutables.value.Value;

/** An engine's accepted dtype spellings over its versions, oldest range first. */
@Value.Immutable
abstract class SpellingTableDef {
  public abstract List<DtypeSpellings> entries();

  /** The spellings of the newest range. */
  public DtypeSpellings newest() {
    return entries().get(entries().size() - 1);
  }

  /** The spellings for {@code version}; see {@link Versioned#select}. */
  public Versioned.Lookup<DtypeSpellings> forVersion(Optional<String> version) {
    return Versioned.select(entries(), version);
  }

  @Value.Check
  void check() {
    Versioned.checkOrdered("spelling table", entries());
  }
}
