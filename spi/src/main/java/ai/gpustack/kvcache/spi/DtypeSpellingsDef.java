package ai.gpustack.kvcache.spi;

import ai.gpustack.kvcache.api.Dtype;
import ai.gpustack.kvcache.api.Problems;
import java.util.SortedSet;
import org.immutables.value.Value;

/**
 * The {@code --kv-cache-dtype} values an engine's parser accepts for a range of its versions, and
 * the upstream file and version they were read from. Every spelling is a valid {@link Dtype}.
 */
@Value.Immutable
abstract class DtypeSpellingsDef implements Versioned {
  @Override
  public abstract VersionRange versions();

  @Value.NaturalOrder
  public abstract SortedSet<String> spellings();

  @Override
  public abstract String source();

  /**
   * The spellings {@code [from, until)} accepts (either end may be null), read from {@code source}.
   */
  public static DtypeSpellings of(String from, String until, String source, String... spellings) {
    return DtypeSpellings.builder()
        .versions(VersionRange.of(from, until))
        .source(source)
        .addSpellings(spellings)
        .build();
  }

  public boolean accepts(String dtype) {
    return spellings().contains(dtype);
  }

  @Value.Check
  void check() {
    if (source().isBlank()) {
      throw new IllegalArgumentException("spellings for " + versions() + " name no source");
    }
    if (spellings().isEmpty()) {
      throw new IllegalArgumentException("spellings for " + versions() + " are empty");
    }
    Problems.check(
        "spellings for " + versions(),
        p -> spellings().forEach(s -> Dtype.check(s, "spellings", p)));
  }
}
