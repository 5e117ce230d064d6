package ai.gpustack.kvcache.spi;

import ai.gpustack.kvcache.api.Quoting;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.immutables.value.Value;

/**
 * An engine version as people write it, in any {@link VersionScheme}: a release number ({@code
 * 0.11.0}, {@code v0.5.3rc2}, {@code 0.5.13.post1}), ordered as Python packages are (PEP 440): by
 * its numeric components, then a pre-release ({@code a}, {@code b}, {@code rc}) before the release
 * and a post-release after it, since engines add spellings in post-releases (SGLang's {@code
 * fp8_e4m3} in 0.4.1.post6), anything after that ({@code -cu126}) ignored; a build number ({@code
 * b4500}, the same as {@code 4500}); or a date ({@code 2025-01-17}, the same as {@code
 * 2025.01.17}). Versions of one engine are in its one scheme, so they compare as that scheme's.
 */
@Value.Immutable
abstract class EngineVersionDef implements Comparable<EngineVersion> {
  private static final Pattern NUMERIC =
      Pattern.compile(
          "^[vV]?(\\d+(?:\\.\\d+)*)(?:[.-]?(a|b|rc)(\\d*))?(?:[.-]?post(\\d*))?",
          Pattern.CASE_INSENSITIVE);

  private static final Pattern BUILD = Pattern.compile("^[bB](\\d{1,9})$");
  private static final Pattern DASHED_DATE = Pattern.compile("^(\\d{4})-(\\d{2})-(\\d{2})$");

  /** As written. */
  public abstract String raw();

  /**
   * The numeric components, then the pre-release rank (a = -3, b = -2, rc = -1, none = 0) and
   * number, then the post-release number (-1 when none): compared left to right.
   */
  @Value.Derived
  List<Integer> components() {
    String trimmed = raw().trim();
    Matcher build = BUILD.matcher(trimmed);
    if (build.matches()) {
      return List.of(Integer.parseInt(build.group(1)), 0, 0, -1);
    }
    Matcher date = DASHED_DATE.matcher(trimmed);
    if (date.matches()) {
      return List.of(
          Integer.parseInt(date.group(1)),
          Integer.parseInt(date.group(2)),
          Integer.parseInt(date.group(3)),
          0,
          0,
          -1);
    }
    Matcher m = NUMERIC.matcher(trimmed);
    if (!m.find()) {
      throw new IllegalArgumentException(
          "engine version "
              + Quoting.quote(raw())
              + " is not a version: not a release number such as 0.11.0, a build number such as"
              + " b4500 or a date such as 2025.01.17");
    }
    List<Integer> parts = new ArrayList<>();
    for (String p : m.group(1).split("\\.")) {
      parts.add(Integer.parseInt(p));
    }
    String pre = m.group(2) == null ? "" : m.group(2).toLowerCase(Locale.ROOT);
    parts.add(
        switch (pre) {
          case "a" -> -3;
          case "b" -> -2;
          case "rc" -> -1;
          default -> 0;
        });
    parts.add(number(m.group(3)));
    parts.add(m.group(4) == null ? -1 : number(m.group(4)));
    return parts;
  }

  private static int number(String digits) {
    return digits == null || digits.isEmpty() ? 0 : Integer.parseInt(digits);
  }

  /**
   * Parses {@code raw}; throws {@link IllegalArgumentException} naming it when it has no number.
   */
  public static EngineVersion parse(String raw) {
    EngineVersion v = EngineVersion.builder().raw(raw).build();
    v.components();
    return v;
  }

  @Override
  public int compareTo(EngineVersion other) {
    List<Integer> a = components();
    List<Integer> b = other.components();
    int release = Math.max(a.size(), b.size()) - 3;
    for (int i = 0; i < release + 3; i++) {
      int x = at(a, i, release);
      int y = at(b, i, release);
      if (x != y) {
        return Integer.compare(x, y);
      }
    }
    return 0;
  }

  /** Component {@code i} of {@code parts}, the release padded with zeros to {@code release}. */
  private static int at(List<Integer> parts, int i, int release) {
    int own = parts.size() - 3;
    if (i < release) {
      return i < own ? parts.get(i) : 0;
    }
    return parts.get(own + i - release);
  }

  @Override
  public String toString() {
    return raw();
  }
}
