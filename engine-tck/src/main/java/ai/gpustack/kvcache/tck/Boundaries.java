package ai.gpustack.kvcache.tck;

import ai.gpustack.kvcache.spi.DtypeReport;
import ai.gpustack.kvcache.spi.DtypeSpellings;
import ai.gpustack.kvcache.spi.Engine;
import ai.gpustack.kvcache.spi.EngineVersion;
import ai.gpustack.kvcache.spi.FlagInventory;
import ai.gpustack.kvcache.spi.VersionRange;
import ai.gpustack.kvcache.spi.VersionScheme;
import java.time.DateTimeException;
import java.time.LocalDate;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.TreeMap;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * The versions the kit renders and reads at: the first version of every range of every table
 * (spellings, inventories, reports) and the version just before each range ends, written in the
 * engine's scheme. A module that decides by version (a flag from some release on) is wrong at a
 * boundary first, so checking one version per range misses a flag rendered one release early.
 */
final class Boundaries {
  private static final Pattern RELEASE =
      Pattern.compile("^([vV]?)(\\d+(?:\\.\\d+)*)(?:[.-]?post(\\d*))?(.*)$");
  private static final Pattern BUILD = Pattern.compile("^([bB]?)(\\d+)$");
  private static final Pattern DATE = Pattern.compile("^(\\d{4})([.-])(\\d{2})\\2(\\d{2})$");

  private Boundaries() {}

  /** Every range of every table the engine declares, spellings first. */
  static List<VersionRange> ranges(Engine engine) {
    List<VersionRange> ranges = new ArrayList<>();
    engine.dtypeSpellings().entries().stream().map(DtypeSpellings::versions).forEach(ranges::add);
    engine.flagInventories().stream().map(FlagInventory::versions).forEach(ranges::add);
    engine.dtypeReports().stream().map(DtypeReport::versions).forEach(ranges::add);
    return ranges;
  }

  /** Every boundary version of every range, ascending, each once. */
  static List<String> of(Engine engine) {
    TreeMap<EngineVersion, String> points = new TreeMap<>();
    for (VersionRange range : ranges(engine)) {
      String first = range.from().map(Object::toString).orElse(earliest(engine.versionScheme()));
      points.putIfAbsent(EngineVersion.parse(first), first);
      range
          .until()
          .flatMap(u -> justBefore(u, engine.versionScheme()))
          .filter(v -> range.contains(EngineVersion.parse(v)))
          .ifPresent(v -> points.putIfAbsent(EngineVersion.parse(v), v));
    }
    return List.copyOf(points.values());
  }

  /** The boundary versions {@code range} holds. */
  static List<String> within(Engine engine, VersionRange range) {
    return of(engine).stream().filter(v -> range.contains(EngineVersion.parse(v))).toList();
  }

  /** The lowest version the scheme writes, standing for a range open below. */
  static String earliest(VersionScheme scheme) {
    return scheme == VersionScheme.DATE ? "0001-01-01" : "0";
  }

  /**
   * A version of {@code scheme} just before {@code until}: the build before it, the day before it,
   * or the release before it ({@code 0.13.999} before {@code 0.14.0}, {@code 0.4.6.post3} before
   * {@code 0.4.6.post4}); empty when none is lower or {@code until} is not in the scheme.
   */
  static Optional<String> justBefore(EngineVersion until, VersionScheme scheme) {
    String raw = until.raw().trim();
    Optional<String> before =
        switch (scheme) {
          case BUILD_NUMBER -> buildBefore(raw);
          case DATE -> dayBefore(raw);
          case PEP440 -> releaseBefore(raw);
        };
    return before.filter(b -> EngineVersion.parse(b).compareTo(until) < 0);
  }

  private static Optional<String> buildBefore(String raw) {
    Matcher m = BUILD.matcher(raw);
    if (!m.matches() || Long.parseLong(m.group(2)) == 0) {
      return Optional.empty();
    }
    return Optional.of(m.group(1) + (Long.parseLong(m.group(2)) - 1));
  }

  private static Optional<String> dayBefore(String raw) {
    Matcher m = DATE.matcher(raw);
    if (!m.matches()) {
      return Optional.empty();
    }
    try {
      LocalDate day =
          LocalDate.of(
                  Integer.parseInt(m.group(1)),
                  Integer.parseInt(m.group(3)),
                  Integer.parseInt(m.group(4)))
              .minusDays(1);
      String sep = m.group(2);
      return Optional.of(
          String.format(
              "%04d%s%02d%s%02d",
              day.getYear(), sep, day.getMonthValue(), sep, day.getDayOfMonth()));
    } catch (DateTimeException e) {
      // a date that does not exist (2025-02-30) has no day before; the scheme check names it
      return Optional.empty();
    }
  }

  private static Optional<String> releaseBefore(String raw) {
    Matcher m = RELEASE.matcher(raw);
    if (!m.matches()) {
      return Optional.empty();
    }
    String release = m.group(2);
    if (m.group(3) != null && m.group(4).isEmpty()) {
      int post = m.group(3).isEmpty() ? 0 : Integer.parseInt(m.group(3));
      return Optional.of(m.group(1) + release + (post == 0 ? "" : ".post" + (post - 1)));
    }
    String[] parts = release.split("\\.");
    int last = parts.length - 1;
    while (last >= 0 && Integer.parseInt(parts[last]) == 0) {
      last--;
    }
    if (last < 0) {
      return Optional.empty();
    }
    List<String> before = new ArrayList<>();
    for (int i = 0; i < parts.length; i++) {
      before.add(
          i < last
              ? parts[i]
              : i == last ? Integer.toString(Integer.parseInt(parts[i]) - 1) : "999");
    }
    return Optional.of(m.group(1) + String.join(".", before));
  }
}
