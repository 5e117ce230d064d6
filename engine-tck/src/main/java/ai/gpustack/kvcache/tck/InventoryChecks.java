package ai.gpustack.kvcache.tck;

import ai.gpustack.kvcache.api.Dtype;
import ai.gpustack.kvcache.api.RoleKind;
import ai.gpustack.kvcache.spi.ArgGroup;
import ai.gpustack.kvcache.spi.ArgvDialect;
import ai.gpustack.kvcache.spi.CacheAttachment;
import ai.gpustack.kvcache.spi.Engine;
import ai.gpustack.kvcache.spi.EngineVersion;
import ai.gpustack.kvcache.spi.FlagInventory;
import ai.gpustack.kvcache.spi.FlagReader;
import ai.gpustack.kvcache.spi.FlagReading;
import ai.gpustack.kvcache.spi.FlagSpec;
import ai.gpustack.kvcache.spi.ReadToken;
import ai.gpustack.kvcache.spi.VersionRange;
import ai.gpustack.kvcache.tck.ReleaseFacts.KvFlag;
import ai.gpustack.kvcache.tck.ReleaseFacts.Release;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.TreeSet;

/**
 * Each release's serve parser against the flag inventory holding it: no flag the release lacks
 * (except those the kit requires in every inventory: dtype, owned, listen and rendered flags), the
 * same arities, the same dialect, and every prefix of a flag the project reads resolving as the
 * release resolves it, and, for a dtype flag, an ambiguous prefix naming every candidate the
 * release would (a workload passing one is refused with them).
 */
final class InventoryChecks {
  private final String where;
  private final Release release;
  private final FlagInventory inventory;
  private final ArgvDialect dialect;
  private final Set<String> required;
  // an ambiguous prefix of a dtype flag is refused naming its candidates: all of them
  private final Set<String> named;
  private final Map<String, String> options;
  private final List<String> out = new ArrayList<>();

  private InventoryChecks(Engine engine, String where, Release release, FlagInventory inventory) {
    this.where = where;
    this.release = release;
    this.inventory = inventory;
    this.dialect = engine.dialect(Optional.of(release.version()));
    this.required = required(engine, release.version());
    this.named = new TreeSet<>(engine.dtypeFlags());
    this.options = release.optionStrings();
  }

  /** Every disagreement, from the first release the first inventory covers. */
  static List<String> problems(Engine engine, ReleaseFacts facts) {
    List<String> out = new ArrayList<>();
    EngineVersion first =
        engine.flagInventories().get(0).versions().from().orElse(EngineVersion.parse("0"));
    Set<VersionRange> sourced = new HashSet<>();
    for (Release r : facts.releases()) {
      if (r.dtypeFlag().isEmpty()
          || r.flagCount() < 0
          || EngineVersion.parse(r.version()).compareTo(first) < 0) {
        continue;
      }
      FlagInventory inventory = engine.flagInventory(Optional.of(r.version()));
      if (sourced.add(inventory.versions())) {
        out.addAll(SourceChecks.sourceNames(facts, "flagInventories()", inventory, r, Set.of()));
      }
      out.addAll(new InventoryChecks(engine, facts.where(r), r, inventory).problems());
    }
    return out;
  }

  private List<String> problems() {
    listedFlagProblems();
    underscoresProblem();
    dottedMembersProblem();
    abbreviationsProblem();
    prefixProblems();
    return out;
  }

  /** Each listed flag exists in the release with the same arity. */
  private void listedFlagProblems() {
    for (FlagSpec f : inventory.flags()) {
      String arity = options.get(f.name());
      if (arity == null) {
        if (required.contains(f.name())) {
          // listed for the kit; the release exits on it, so no cache attaches there
          options.put(f.name(), f.arity().name());
        } else {
          out.add(
              where
                  + ": flagInventories() for "
                  + inventory.versions()
                  + " lists "
                  + f.name()
                  + ", which the release does not have: remove it there, or start its range"
                  + " at the release that adds it");
        }
      } else if (!arity.equals(f.arity().name())) {
        out.add(
            where
                + ": "
                + f.name()
                + " takes "
                + arity
                + " ("
                + release.flags().getOrDefault(f.name(), missingFlag()).at()
                + "), but flagInventories() for "
                + inventory.versions()
                + " says "
                + f.arity()
                + (arity.equals("OPTIONAL")
                    ? " (FlagArity has no nargs='?'; list it only where a prefix needs it)"
                    : ""));
      }
    }
  }

  private void underscoresProblem() {
    if (dialect.underscoresAsDashes() != release.underscoresAsDashes()) {
      out.add(
          where
              + ": its parser "
              + (release.underscoresAsDashes() ? "reads" : "does not read")
              + " --kv_cache_dtype as --kv-cache-dtype ("
              + release.parser().path("class").asText()
              + " "
              + release.parser().path("at").asText("")
              + "), but the dialect for "
              + inventory.versions()
              + " says underscoresAsDashes="
              + dialect.underscoresAsDashes());
    }
  }

  private void dottedMembersProblem() {
    release
        .dottedMembers()
        .filter(d -> d != dialect.dottedMembers())
        .ifPresent(
            d ->
                out.add(
                    where
                        + ": its parser "
                        + (d ? "reads" : "does not read")
                        + " --flag.member as --flag ("
                        + release.parser().path("dottedMembersAt").asText("parser facts")
                        + "), but the dialect for "
                        + inventory.versions()
                        + " says dottedMembers="
                        + dialect.dottedMembers()));
  }

  private void abbreviationsProblem() {
    if (dialect.abbreviations() != release.abbreviations()) {
      out.add(
          where
              + ": its parser "
              + (release.abbreviations() ? "resolves" : "refuses")
              + " unique prefixes, but the dialect for "
              + inventory.versions()
              + " says abbreviations="
              + dialect.abbreviations());
    }
  }

  /**
   * Every prefix of a flag the project reads resolves as in the release; the first that does not.
   */
  private void prefixProblems() {
    Set<String> read = new TreeSet<>(required);
    inventory.kvFormatFlags().forEach(f -> read.add(f.name()));
    release.kvFlags().ifPresent(k -> k.stream().map(KvFlag::flag).forEach(read::add));
    FlagReader reader = new FlagReader(dialect, inventory);
    for (String flag : read) {
      if (options.containsKey(flag)) {
        firstDisagreeingPrefix(reader, flag).ifPresent(out::add);
      }
    }
  }

  private Optional<String> firstDisagreeingPrefix(FlagReader reader, String flag) {
    for (int end = 3; end <= flag.length(); end++) {
      String prefix = flag.substring(0, end);
      List<String> candidates =
          options.keySet().stream().filter(o -> o.startsWith(prefix)).toList();
      ReadToken java = reader.read(prefix).orElseThrow();
      ReleaseReading reading = releaseReading(flag, prefix, candidates, java);
      if (!reading.agrees()) {
        return Optional.of(disagreement(flag, prefix, candidates, java, reading.says()));
      }
    }
    return Optional.empty();
  }

  /** How the release reads a prefix, and whether the inventory's reader reads it alike. */
  private record ReleaseReading(String says, boolean agrees) {}

  private ReleaseReading releaseReading(
      String flag, String prefix, List<String> candidates, ReadToken java) {
    if (options.containsKey(prefix)) {
      return new ReleaseReading("is " + prefix, java.readsAs(prefix));
    }
    if (!release.abbreviations() || candidates.isEmpty()) {
      return new ReleaseReading("is no option", java.reading() == FlagReading.UNKNOWN);
    }
    if (candidates.size() == 1) {
      return new ReleaseReading("reads as " + candidates.get(0), java.readsAs(candidates.get(0)));
    }
    return new ReleaseReading(
        "is ambiguous (" + String.join(", ", candidates) + ")",
        java.reading() == FlagReading.AMBIGUOUS
            && (!named.contains(flag)
                || new TreeSet<>(java.candidates()).equals(new TreeSet<>(candidates))));
  }

  private String disagreement(
      String flag, String prefix, List<String> candidates, ReadToken java, String releaseSays) {
    Set<String> lacking = new TreeSet<>(candidates);
    lacking.removeAll(inventory.byName().keySet());
    Set<String> extra = new TreeSet<>(java.candidates());
    extra.removeAll(candidates);
    return where
        + ": "
        + prefix
        + " "
        + releaseSays
        + " in the release, but flagInventories() for "
        + inventory.versions()
        + " "
        + describe(java)
        + (lacking.isEmpty() ? "" : "; it lacks " + String.join(", ", lacking))
        + (extra.isEmpty()
            ? ""
            : "; it lists " + String.join(", ", extra) + ", which the release lacks")
        + (named.contains(flag) && candidates.size() > 1 && java.reading() == FlagReading.AMBIGUOUS
            ? " (a refusal names every candidate, so list them all)"
            : "");
  }

  /** The flags the kit requires in every inventory: dtype, owned, listen and rendered ones. */
  private static Set<String> required(Engine engine, String version) {
    Set<String> flags = new TreeSet<>(engine.dtypeFlags());
    flags.addAll(engine.ownedFlags());
    flags.addAll(engine.listenFlags());
    String dtype =
        engine.dtypeSpellings().newest().spellings().stream()
            .filter(s -> !s.equals(Dtype.AUTO))
            .findFirst()
            .orElse(Dtype.AUTO);
    for (RoleKind kind : RoleKind.values()) {
      CacheAttachment a = engine.attachment(KitChecks.request(kind, version, dtype));
      for (String token : a.connectorArgs()) {
        if (token.startsWith("--")) {
          flags.add(token.contains("=") ? token.substring(0, token.indexOf('=')) : token);
        }
      }
      a.defaultedArgs().stream().map(ArgGroup::flag).forEach(flags::add);
    }
    return flags;
  }

  private static String describe(ReadToken t) {
    return switch (t.reading()) {
      case EXACT -> "reads it as " + t.flag().orElseThrow();
      case ABBREVIATION -> "reads it as " + t.flag().orElseThrow();
      case AMBIGUOUS -> "finds it ambiguous (" + String.join(", ", t.candidates()) + ")";
      case UNKNOWN -> "knows no such option";
    };
  }

  private static ReleaseFacts.Flag missingFlag() {
    return new ReleaseFacts.Flag("?", "?", "?", List.of(), Optional.empty());
  }
}
