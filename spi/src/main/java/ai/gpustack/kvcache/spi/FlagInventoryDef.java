package ai.gpustack.kvcache.spi;

import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.stream.Collectors;
import org.immutables.value.Value;

/**
 * The long options an engine's parser knows for a range of its versions, as many as it takes for
 * every prefix of a flag this project reads (the dtype, owned, listen and defaulted flags, and the
 * flags that change the KV format) to resolve as that parser resolves it: to the same flag, or as
 * ambiguous. For the dtype flags that means every option sharing three or more leading characters
 * with one, since an ambiguous prefix of a dtype flag is refused naming its candidates; for the
 * others, one option sharing each one's longest prefix is enough. Every option listed exists in
 * every release of the range, with the arity it has there (the dtype, owned, listen and rendered
 * flags excepted: the contract kit requires them in every range).
 */
@Value.Immutable
abstract class FlagInventoryDef implements Versioned {
  @Override
  public abstract VersionRange versions();

  public abstract List<FlagSpec> flags();

  @Override
  public abstract String source();

  /**
   * How the parser of these versions reads flags, when it differs from {@link Engine#dialect()}: an
   * engine whose parser gained spellings in a release (vLLM's FlexibleArgumentParser) says so per
   * range.
   */
  public abstract Optional<ArgvDialect> dialect();

  /** The flags that change the KV representation beside the dtype flag, in inventory order. */
  @Value.Lazy
  public List<FlagSpec> kvFormatFlags() {
    return flags().stream().filter(FlagSpec::changesKvFormat).toList();
  }

  public Optional<FlagSpec> flag(String name) {
    return Optional.ofNullable(byName().get(name));
  }

  /** The flags by canonical name, in inventory order; built once. */
  @Value.Lazy
  public Map<String, FlagSpec> byName() {
    Map<String, FlagSpec> map = new LinkedHashMap<>();
    flags().forEach(f -> map.put(f.name(), f));
    return Collections.unmodifiableMap(map);
  }

  /** The canonical name of each alias, in inventory order; built once. */
  @Value.Lazy
  public Map<String, String> aliases() {
    Map<String, String> map = new LinkedHashMap<>();
    flags().forEach(f -> f.aliases().forEach(a -> map.put(a, f.name())));
    return Collections.unmodifiableMap(map);
  }

  /** The canonical flag {@code name} is here, by its own name or as an alias of it. */
  public Optional<String> canonical(String name) {
    return byName().containsKey(name)
        ? Optional.of(name)
        : Optional.ofNullable(aliases().get(name));
  }

  @Value.Check
  void check() {
    List<String> names =
        flags().stream().flatMap(f -> f.names().stream()).collect(Collectors.toList());
    if (names.stream().distinct().count() != names.size()) {
      throw new IllegalArgumentException(
          "flag inventory for " + versions() + " lists a flag or alias twice");
    }
    if (source().isBlank()) {
      throw new IllegalArgumentException("flag inventory for " + versions() + " names no source");
    }
  }
}
