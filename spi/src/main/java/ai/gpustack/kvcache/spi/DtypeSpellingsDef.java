package ai.gpustack.kvcache.spi;

import ai.gpustack.kvcache.api.Dtype;
import ai.gpustack.kvcache.api.KvFormat;
import ai.gpustack.kvcache.api.Problems;
import ai.gpustack.kvcache.api.Quoting;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.SortedMap;
import java.util.SortedSet;
import org.immutables.value.Value;

/**
 * The Binding dtype spellings an engine accepts for a range of its versions, the value its parser
 * is handed for each (the spelling itself unless {@link #engineValues()} translates it), the KV
 * format each one stores, and the upstream files and releases they were read from. Every spelling
 * is a valid {@link ai.gpustack.kvcache.api.Dtype}.
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

  /**
   * The value the engine's parser is given for a Binding spelling where the two differ: llama.cpp
   * takes {@code bf16} where a Binding says {@code bfloat16}. Rendered on every dtype flag, and
   * translated back when a running replica's argv or report is read.
   */
  @Value.NaturalOrder
  public abstract SortedMap<String, String> engineValues();

  /** The value rendered for {@code spelling}: its translation, or the spelling itself. */
  public String engineValue(String spelling) {
    return engineValues().getOrDefault(spelling, spelling);
  }

  /**
   * The Binding spelling the engine's {@code value} stands for: the one translated to it, else the
   * value itself when the range accepts it verbatim; empty otherwise.
   */
  public Optional<String> bindingSpelling(String value) {
    for (Map.Entry<String, String> e : engineValues().entrySet()) {
      if (e.getValue().equals(value)) {
        return Optional.of(e.getKey());
      }
    }
    return accepts(value) && !engineValues().containsKey(value)
        ? Optional.of(value)
        : Optional.empty();
  }

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
    for (Map.Entry<String, String> e : engineValues().entrySet()) {
      if (!spellings().contains(e.getKey())) {
        throw new IllegalArgumentException(
            "spellings for " + versions() + " translate " + e.getKey() + " but do not accept it");
      }
      if (!e.getValue().matches("[A-Za-z0-9][A-Za-z0-9_.+-]{0,39}")) {
        throw new IllegalArgumentException(
            "spellings for "
                + versions()
                + " translate "
                + e.getKey()
                + " to "
                + Quoting.quote(e.getValue())
                + ", which is not 1 to 40 of letters, digits and _.+-");
      }
    }
    if (engineValues().values().stream().distinct().count() != engineValues().size()) {
      throw new IllegalArgumentException(
          "spellings for " + versions() + " translate two spellings to one engine value");
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
