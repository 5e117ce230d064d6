package ai.gpustack.kvcache.spi;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.regex.Pattern;

/**
 * Reads argv tokens the way one version of an engine's parser does: exact names, {@code
 * --flag=value}, the dialect's normalised spellings, and prefix abbreviation decided against the
 * whole flag inventory. Immutable and thread-safe.
 */
public final class FlagReader {
  private static final Pattern NEGATIVE_NUMBER = Pattern.compile("^-\\d+$|^-\\d*\\.\\d+$");

  private final ArgvDialect dialect;
  private final Map<String, FlagSpec> flags;

  public FlagReader(ArgvDialect dialect, List<FlagSpec> inventory) {
    this.dialect = dialect;
    Map<String, FlagSpec> map = new LinkedHashMap<>();
    inventory.forEach(f -> map.put(f.name(), f));
    this.flags = map;
  }

  /** A reader over {@code inventory}'s flags, sharing its index instead of copying it. */
  public FlagReader(ArgvDialect dialect, FlagInventory inventory) {
    this.dialect = dialect;
    this.flags = inventory.byName();
  }

  public ArgvDialect dialect() {
    return dialect;
  }

  /** Whether the inventory knows {@code flag} by its canonical name. */
  public boolean knows(String flag) {
    return flags.containsKey(flag);
  }

  /**
   * How the parser reads {@code token}; empty when it is not a long option at all (no leading
   * {@code --}, or the bare {@code --}).
   */
  public Optional<ReadToken> read(String token) {
    if (!token.startsWith("--") || token.equals("--")) {
      return Optional.empty();
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
    if (flags.containsKey(name)) {
      return Optional.of(read.reading(FlagReading.EXACT).flag(name).build());
    }
    if (dialect.abbreviations()) {
      List<String> candidates = new ArrayList<>();
      for (String flag : flags.keySet()) {
        if (flag.startsWith(name)) {
          candidates.add(flag);
        }
      }
      if (candidates.size() == 1) {
        return Optional.of(read.reading(FlagReading.ABBREVIATION).flag(candidates.get(0)).build());
      }
      if (candidates.size() > 1) {
        return Optional.of(
            read.reading(FlagReading.AMBIGUOUS).addAllCandidates(candidates).build());
      }
    }
    return Optional.of(read.reading(FlagReading.UNKNOWN).build());
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
    FlagSpec spec = flags.get(flag);
    return spec == null ? FlagArity.ONE : spec.arity();
  }

  private static boolean looksLikeOption(String token) {
    return token.startsWith("-") && token.length() > 1 && !NEGATIVE_NUMBER.matcher(token).matches();
  }
}
