package ai.gpustack.kvcache.spi;

import ai.gpustack.kvcache.api.Dtype;
import ai.gpustack.kvcache.api.KvFormat;
import ai.gpustack.kvcache.api.Problems;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.SortedMap;
import java.util.SortedSet;
import org.immutables.value.Value;

/**
 * The {@code --kv-cache-dtype} values an engine's parser accepts for a range of its versions, the
 * KV format each one stores, and the upstream files and releases they were read from. Every
 * spelling is a valid {@link ai.gpustack.kvcache.api.Dtype}.
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
   * The KV format each spelling stores on the engine's default platform (CUDA). An engine module
   * maps every spelling; the contract kit fails one that leaves a spelling unmapped.
   */
  @Value.NaturalOrder
  public abstract SortedMap<String, KvFormat> formats();

  /** Platforms on which a spelling stores another format than {@link #formats()} says. */
  public abstract List<PlatformFormats> platforms();

  /**
   * The spellings {@code [from, until)} accepts (either end may be null), read from {@code source},
   * each with the format it stores.
   */
  public static DtypeSpellings of(
      String from, String until, String source, Map<String, KvFormat> formats) {
    return DtypeSpellings.builder()
        .versions(VersionRange.of(from, until))
        .source(source)
        .addAllSpellings(formats.keySet())
        .putAllFormats(formats)
        .build();
  }

  /** The format {@code spelling} stores on the default platform; empty when it is not mapped. */
  public Optional<KvFormat> format(String spelling) {
    return Optional.ofNullable(formats().get(spelling));
  }

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
    for (String mapped : formats().keySet()) {
      if (!spellings().contains(mapped)) {
        throw new IllegalArgumentException(
            "spellings for " + versions() + " map " + mapped + " to a format but do not accept it");
      }
    }
    for (PlatformFormats platform : platforms()) {
      if (!spellings().containsAll(platform.formats().keySet())) {
        throw new IllegalArgumentException(
            "spellings for "
                + versions()
                + " map spellings they do not accept on "
                + platform.platform());
      }
    }
    Problems.check(
        "spellings for " + versions(),
        p -> spellings().forEach(s -> Dtype.check(s, "spellings", p)));
  }
}
