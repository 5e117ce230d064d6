package ai.gpustack.kvcache.spi;

import ai.gpustack.kvcache.api.Quoting;
import java.util.ArrayList;
import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.immutables.value.Value;

/**
 * An engine release number as people write it ({@code 0.11.0}, {@code v0.5.3rc2}, {@code
 * 0.5.13.post1}), compared by its leading numeric components; a pre-release or post-release suffix
 * does not change which spelling table applies.
 */
@Value.Immutable
abstract class EngineVersionDef implements Comparable<EngineVersion> {
  private static final Pattern NUMERIC = Pattern.compile("^[vV]?(\\d+(?:\\.\\d+)*)");

  /** As written. */
  public abstract String raw();

  @Value.Derived
  List<Integer> components() {
    Matcher m = NUMERIC.matcher(raw().trim());
    if (!m.find()) {
      throw new IllegalArgumentException(
          "engine version "
              + Quoting.quote(raw())
              + " does not start with a release number such as 0.11.0");
    }
    List<Integer> parts = new ArrayList<>();
    for (String p : m.group(1).split("\\.")) {
      parts.add(Integer.parseInt(p));
    }
    return parts;
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
    for (int i = 0; i < Math.max(a.size(), b.size()); i++) {
      int x = i < a.size() ? a.get(i) : 0;
      int y = i < b.size() ? b.get(i) : 0;
      if (x != y) {
        return Integer.compare(x, y);
      }
    }
    return 0;
  }

  @Override
  public String toString() {
    return raw();
  }
}
