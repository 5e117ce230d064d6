package ai.gpustack.kvcache.spi;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.regex.Pattern;

/**
 * Reads argv tokens the way one version of an engine's parser does: exact names and aliases, {@code
 * --flag=value}, attached short values, the dialect's normalised spellings, and prefix abbreviation
 * decided against the whole flag inventory, each only where the dialect allows it. Immutable and
 * thread-safe.
 */
public final class FlagReader {
  private static final Pattern NEGATIVE_NUMBER = Pattern.compile("^-\\d+$|^-\\d*\\.\\d+$");

  private final ArgvDialect dialect;
  private final FlagInventory inventory;

  public FlagReader(ArgvDialect dialect, List<FlagSpec> inventory) {
    this(
        dialect,
        FlagInventory.builder()
            .versions(VersionRange.any())
            .source("a list of flags")
            .addAllFlags(inventory)
            .build());
  }

  /** A reader over {@code inventory}'s flags, sharing its index instead of copying it. */
  public FlagReader(ArgvDialect dialect, FlagInventory inventory) {
    this.dialect = dialect;
    this.inventory = inventory;
  }

  public ArgvDialect dialect() {
    return dialect;
  }

  /** Whether the inventory knows {@code flag} by its canonical name. */
  public boolean knows(String flag) {
    return inventory.byName().containsKey(flag);
  }

  /**
   * How the parser reads {@code token}; empty when it is no option this reader knows of: not
   * starting with {@code -}, the bare {@code --}, a negative number, or a single-dash token that is
   * none of the inventory's short aliases.
   */
  public Optional<ReadToken> read(String token) {
    if (!token.startsWith("-") || token.equals("--") || NEGATIVE_NUMBER.matcher(token).matches()) {
      return Optional.empty();
    }
    if (!token.startsWith("--")) {
      return readShort(token);
    }
    String spelling = token;
    Optional<String> inline = Optional.empty();
    int eq = token.indexOf('=');
    if (dialect.inlineValues() && eq >= 0) {
      spelling = token.substring(0, eq);
      inline = Optional.of(token.substring(eq + 1));
    }
    String name = spelling;
    if (dialect.underscoresAsDashes()) {
      int dot = name.indexOf('.');
      String head = dot < 0 ? name.substring(2) : name.substring(2, dot);
      name = "--" + head.replace('_', '-') + (dot < 0 ? "" : name.substring(dot));
    }
    if (dialect.dottedMembers() && name.indexOf('.') > 2) {
      name = name.substring(0, name.indexOf('.'));
    }
    ReadToken.Builder read =
        ReadToken.builder().written(token).spelling(spelling).inlineValue(inline);
    Optional<String> exact = inventory.canonical(name);
    if (exact.isPresent()) {
      return Optional.of(read.reading(FlagReading.EXACT).flag(exact.get()).build());
    }
    if (dialect.abbreviations()) {
      Set<String> candidates = new LinkedHashSet<>();
      for (String flag : inventory.byName().keySet()) {
        if (flag.startsWith(name)) {
          candidates.add(flag);
        }
      }
      for (Map.Entry<String, String> alias : inventory.aliases().entrySet()) {
        if (alias.getKey().startsWith("--") && alias.getKey().startsWith(name)) {
          candidates.add(alias.getValue());
        }
      }
      if (candidates.size() == 1) {
        return Optional.of(
            read.reading(FlagReading.ABBREVIATION).flag(candidates.iterator().next()).build());
      }
      if (candidates.size() > 1) {
        return Optional.of(
            read.reading(FlagReading.AMBIGUOUS).addAllCandidates(candidates).build());
      }
    }
    return Optional.of(read.reading(FlagReading.UNKNOWN).build());
  }

  /**
   * A single-dash token: a short alias as written, with an inline value after {@code =} or an
   * attached one where the dialect reads them; the longest alias wins, as getopt's would.
   */
  private Optional<ReadToken> readShort(String token) {
    Map<String, String> aliases = inventory.aliases();
    ReadToken.Builder read = ReadToken.builder().written(token).reading(FlagReading.EXACT);
    String flag = aliases.get(token);
    if (flag != null) {
      return Optional.of(read.spelling(token).flag(flag).build());
    }
    int eq = token.indexOf('=');
    if (dialect.inlineValues() && eq > 0 && aliases.containsKey(token.substring(0, eq))) {
      String alias = token.substring(0, eq);
      return Optional.of(
          read.spelling(alias)
              .flag(aliases.get(alias))
              .inlineValue(token.substring(eq + 1))
              .build());
    }
    if (dialect.attachedShortValues()) {
      String best = null;
      for (String alias : aliases.keySet()) {
        if (!alias.startsWith("--")
            && token.startsWith(alias)
            && (best == null || alias.length() > best.length())) {
          best = alias;
        }
      }
      if (best != null) {
        return Optional.of(
            read.spelling(best)
                .flag(aliases.get(best))
                .inlineValue(token.substring(best.length()))
                .build());
      }
    }
    return Optional.empty();
  }

  /**
   * Every place {@code argv} passes {@code flag}, in any spelling the parser reads as it, plus
   * every ambiguous prefix that could be it. Scanning stops at a bare {@code --} where the dialect
   * ends options there.
   */
  public List<FlagOccurrence> find(List<String> argv, String flag) {
    List<FlagOccurrence> found = new ArrayList<>();
    for (int i = 0; i < argv.size(); i++) {
      String token = argv.get(i);
      if (dialect.doubleDashEndsOptions() && token.equals("--")) {
        break;
      }
      Optional<ReadToken> read = read(token);
      if (read.isEmpty()) {
        continue;
      }
      ReadToken t = read.get();
      if (t.readsAs(flag) || t.couldBe(flag)) {
        Optional<String> value = t.inlineValue();
        if (value.isEmpty() && t.readsAs(flag) && i + 1 < argv.size()) {
          String next = argv.get(i + 1);
          if (!looksLikeOption(next) && arity(flag) != FlagArity.NONE) {
            value = Optional.of(next);
          }
        }
        found.add(FlagOccurrence.builder().index(i).flag(flag).token(t).value(value).build());
      }
    }
    return found;
  }

  /** Whether the parser reads any token of {@code argv} as {@code flag}. */
  public boolean names(List<String> argv, String flag) {
    return find(argv, flag).stream().anyMatch(o -> !o.ambiguous());
  }

  /**
   * The value the parser ends up with for {@code flag}: the last occurrence of the argv as the
   * parser reads it ({@link #asParsed}) wins.
   */
  public Optional<String> lastValue(List<String> argv, String flag) {
    List<FlagOccurrence> found = find(asParsed(argv), flag);
    for (int i = found.size() - 1; i >= 0; i--) {
      if (!found.get(i).ambiguous()) {
        return found.get(i).value();
      }
    }
    return Optional.empty();
  }

  /**
   * {@code argv} as the parser reads it after the dialect's own rewriting. With dotted members
   * (vLLM's FlexibleArgumentParser, from 0.9.0), every {@code --flag.member=value} or {@code
   * --flag.member value} leaves its place, wherever it is, and comes back at the end as {@code
   * --flag value}, one pair per flag in the order each first appears: after a bare {@code --} if
   * there is one, where it is no option. vLLM passes the members merged into one JSON object; the
   * value kept here is the last member's. Other dialects read argv as written.
   */
  public List<String> asParsed(List<String> argv) {
    if (!dialect.dottedMembers()) {
      return argv;
    }
    List<String> plain = new ArrayList<>();
    Map<String, String> folded = new LinkedHashMap<>();
    for (int i = 0; i < argv.size(); i++) {
      String token = argv.get(i);
      int eq = token.indexOf('=');
      String key = eq < 0 ? token : token.substring(0, eq);
      if (!token.startsWith("--") || key.indexOf('.') < 0) {
        plain.add(token);
        continue;
      }
      String value = eq >= 0 ? token.substring(eq + 1) : i + 1 < argv.size() ? argv.get(++i) : "";
      String head = key.substring(2, key.indexOf('.'));
      folded.put("--" + (dialect.underscoresAsDashes() ? head.replace('_', '-') : head), value);
    }
    if (folded.isEmpty()) {
      return argv;
    }
    folded.forEach(
        (flag, value) -> {
          plain.add(flag);
          plain.add(value);
        });
    return plain;
  }

  private FlagArity arity(String flag) {
    FlagSpec spec = inventory.byName().get(flag);
    return spec == null ? FlagArity.ONE : spec.arity();
  }

  private static boolean looksLikeOption(String token) {
    return token.startsWith("-") && token.length() > 1 && !NEGATIVE_NUMBER.matcher(token).matches();
  }
}
