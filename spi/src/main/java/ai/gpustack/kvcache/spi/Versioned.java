package ai.gpustack.kvcache.spi;

import ai.gpustack.kvcache.api.Quoting;
import java.util.List;
import java.util.Optional;

/** Something that holds for a range of engine versions and says where that was read. */
public interface Versioned {
  VersionRange versions();

  /** The upstream file, revision and release it was read from. */
  String source();

  /**
   * Picks the entry for {@code version} from {@code entries} (ascending, non-overlapping): the
   * newest when no version is given or it is no version at all, the entry whose range holds it
   * otherwise, and none when it predates every entry or falls in a gap.
   */
  static <T extends Versioned> Lookup<T> select(List<T> entries, Optional<String> version) {
    T newest = entries.get(entries.size() - 1);
    if (version.isEmpty() || version.get().isBlank()) {
      return new Lookup<>(Optional.of(newest), "newest (no engine version given)");
    }
    EngineVersion v;
    try {
      v = EngineVersion.parse(version.get());
    } catch (IllegalArgumentException e) {
      return new Lookup<>(
          Optional.of(newest),
          "newest (engine version " + Quoting.quote(version.get()) + " is not a version)");
    }
    for (T entry : entries) {
      if (entry.versions().contains(v)) {
        return new Lookup<>(Optional.of(entry), entry.versions() + " (engine version " + v + ")");
      }
    }
    return new Lookup<>(
        Optional.empty(),
        "none: engine version " + v + " is outside every range this module knows");
  }

  /** Checks that {@code entries} are ascending and do not overlap; throws naming {@code what}. */
  static void checkOrdered(String what, List<? extends Versioned> entries) {
    if (entries.isEmpty()) {
      throw new IllegalArgumentException(what + " has no entries");
    }
    for (int i = 1; i < entries.size(); i++) {
      VersionRange prev = entries.get(i - 1).versions();
      VersionRange next = entries.get(i).versions();
      if (prev.until().isEmpty()
          || next.from().isEmpty()
          || prev.until().get().compareTo(next.from().get()) > 0) {
        throw new IllegalArgumentException(
            what
                + ": version ranges must ascend without overlapping, but "
                + prev
                + " is followed by "
                + next);
      }
    }
  }

  /** The entry chosen for a version, and in words why. */
  record Lookup<T>(Optional<T> entry, String basis) {}
}
