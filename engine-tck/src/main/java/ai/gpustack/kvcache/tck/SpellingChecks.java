package ai.gpustack.kvcache.tck;

import ai.gpustack.kvcache.api.Dtype;
import ai.gpustack.kvcache.spi.DtypeSpellings;
import ai.gpustack.kvcache.spi.Engine;
import ai.gpustack.kvcache.tck.ReleaseFacts.At;
import ai.gpustack.kvcache.tck.ReleaseFacts.DtypeFlag;
import ai.gpustack.kvcache.tck.ReleaseFacts.Release;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.TreeSet;

/**
 * Each release's accepted dtype spellings against the row of {@code dtypeSpellings()} holding it:
 * no spelling the release accepts is refused, none it refuses is accepted, and the row's source
 * names the files that list and enforce them.
 */
final class SpellingChecks {
  private final String where;
  private final String flag;
  private final Release release;
  private final DtypeFlag facts;
  private final DtypeSpellings row;
  private final List<String> out = new ArrayList<>();

  private SpellingChecks(
      String where, String flag, Release release, DtypeFlag facts, DtypeSpellings row) {
    this.where = where;
    this.flag = flag;
    this.release = release;
    this.facts = facts;
    this.row = row;
  }

  /** Every disagreement, release by release, then each row's unnamed sources. */
  static List<String> problems(Engine engine, ReleaseFacts facts) {
    List<String> out = new ArrayList<>();
    for (Release r : facts.releases()) {
      out.addAll(releaseProblems(engine, facts, r));
    }
    for (Map.Entry<DtypeSpellings, List<Release>> group : byRow(engine, facts).entrySet()) {
      Set<String> files = new LinkedHashSet<>();
      group
          .getValue()
          .forEach(r -> files.add(ReleaseFacts.file(r.dtypeFlag().get().spellingsAt())));
      out.addAll(
          SourceChecks.sourceNames(
              facts, "dtypeSpellings()", group.getKey(), group.getValue().get(0), files));
    }
    return out;
  }

  /** The row of {@code dtypeSpellings()} holding {@code release}, if any. */
  static Optional<DtypeSpellings> row(Engine engine, Release release) {
    return engine.dtypeSpellings().forVersion(Optional.of(release.version())).entry();
  }

  private static List<String> releaseProblems(Engine engine, ReleaseFacts facts, Release r) {
    Optional<DtypeSpellings> row = row(engine, r);
    String where = facts.where(r);
    String flag = engine.dtypeFlag();
    if (r.dtypeFlag().isEmpty()) {
      return row.map(
              e ->
                  List.of(
                      where
                          + ": the release's serve parser has no "
                          + flag
                          + ", but dtypeSpellings() has a row for it ("
                          + e.versions()
                          + "): start the table at the first release with the flag"))
          .orElse(List.of());
    }
    DtypeFlag d = r.dtypeFlag().get();
    if (row.isEmpty()) {
      return List.of(
          where
              + ": "
              + flag
              + " accepts "
              + String.join(" ", d.spellings())
              + " ("
              + d.spellingsAt()
              + "), but no row of dtypeSpellings() holds "
              + r.version()
              + ": add one");
    }
    return new SpellingChecks(where, flag, r, d, row.get()).problems();
  }

  private List<String> problems() {
    Set<String> expected = accepted();
    overRefusals(expected);
    overAcceptances(expected);
    unnamedRefusals();
    unnamedValidator();
    return out;
  }

  /** What the release accepts and keeps accepting once it starts, as a Binding can spell it. */
  private Set<String> accepted() {
    Set<String> expected = new TreeSet<>(facts.spellings());
    expected.removeAll(facts.refusedAtStartup().keySet());
    // a value a Binding cannot spell (uppercase, too long) is not the module's to accept
    expected.removeIf(s -> !s.equals(lower(s)) || s.length() > Dtype.MAX_LENGTH);
    return expected;
  }

  private void overRefusals(Set<String> expected) {
    for (String s : expected) {
      if (!row.accepts(s)) {
        out.add(
            where
                + ": "
                + flag
                + " accepts "
                + s
                + " ("
                + facts.spellingsAt()
                + "), but dtypeSpellings() for "
                + row.versions()
                + " does not: an over-refusal. Add "
                + s
                + " to that row, or start a row at "
                + release.version());
      }
    }
  }

  private void overAcceptances(Set<String> expected) {
    for (String s : row.spellings()) {
      if (expected.contains(s)) {
        continue;
      }
      List<At> refused = facts.refusedAtStartup().getOrDefault(s, List.of());
      out.add(
          where
              + ": dtypeSpellings() for "
              + row.versions()
              + " accepts "
              + s
              + ", which the release "
              + (refused.isEmpty()
                  ? "does not list for " + flag + " (" + facts.spellingsAt() + ")"
                  : "lists but refuses once it starts ("
                      + refused.get(0).at()
                      + ": \""
                      + refused.get(0).text()
                      + "\")")
              + ": its Pods would fail. Remove "
              + s
              + " from that row, or end the row before "
              + release.version());
    }
  }

  /** A spelling refused once the release starts: the row's source names the refusing file. */
  private void unnamedRefusals() {
    for (Map.Entry<String, List<At>> refused : facts.refusedAtStartup().entrySet()) {
      String file = refused.getValue().get(0).file();
      if (!row.source().contains(file)) {
        out.add(
            where
                + ": the release lists "
                + refused.getKey()
                + " for "
                + flag
                + " but refuses it once it starts ("
                + refused.getValue().get(0).at()
                + "); the source of dtypeSpellings() for "
                + row.versions()
                + " should say so, naming "
                + file);
      }
    }
  }

  /** A value checked after parsing: the row's source names the validator's file. */
  private void unnamedValidator() {
    if (!facts.checkedAfterParsing()) {
      return;
    }
    facts
        .validatorAt()
        .map(ReleaseFacts::file)
        .filter(file -> !row.source().contains(file))
        .ifPresent(
            file ->
                out.add(
                    where
                        + ": argparse takes any "
                        + flag
                        + " value here and "
                        + facts.validatorAt().get()
                        + " checks it after parsing; the source of dtypeSpellings() for "
                        + row.versions()
                        + " should name "
                        + file));
  }

  private static Map<DtypeSpellings, List<Release>> byRow(Engine engine, ReleaseFacts facts) {
    Map<DtypeSpellings, List<Release>> rows = new LinkedHashMap<>();
    for (Release r : facts.releases()) {
      if (r.dtypeFlag().isPresent()) {
        row(engine, r).ifPresent(e -> rows.computeIfAbsent(e, k -> new ArrayList<>()).add(r));
      }
    }
    return rows;
  }

  private static String lower(String s) {
    return s.toLowerCase(Locale.ROOT);
  }
}
