package ai.gpustack.kvcache.spi;

import ai.gpustack.kvcache.api.Quoting;
import java.util.regex.Pattern;

/**
 * How an engine numbers its releases: what a user may write in {@code spec.engine.version} and the
 * {@code kvcache.gpustack.ai/engine-version} annotation, and what its version ranges are written
 * in. A version its engine's scheme does not read is refused at admission, naming the scheme,
 * instead of being matched to a table it may not belong to.
 */
public enum VersionScheme {
  /**
   * Python package versions (PEP 440): {@code 0.11.0}, {@code v0.5.3rc2}, {@code 0.5.13.post1},
   * with anything after the release and its pre- or post-release part ignored ({@code -cu126}).
   */
  PEP440(
      "a release number such as 0.11.0 (PEP 440)",
      Pattern.compile("^[vV]?\\d+(?:\\.\\d+)*(?:\\D.*)?$", Pattern.DOTALL)),
  /**
   * A build number, the count of commits on the engine's main branch, with an optional {@code b}:
   * {@code b4500} or {@code 4500} (llama.cpp's release tags and {@code --version}).
   */
  BUILD_NUMBER("a build number such as b4500 or 4500", Pattern.compile("^[bB]?\\d{1,9}$")),
  /** A release date: {@code 2025.01.17} or {@code 2025-01-17}. */
  DATE(
      "a date such as 2025.01.17 or 2025-01-17",
      Pattern.compile("^\\d{4}([.-])(0[1-9]|1[0-2])\\1(0[1-9]|[12]\\d|3[01])$"));

  private final String description;
  private final Pattern pattern;

  VersionScheme(String description, Pattern pattern) {
    this.description = description;
    this.pattern = pattern;
  }

  /**
   * What a version in this scheme looks like, for messages: {@code a build number such as b4500}.
   */
  public String description() {
    return description;
  }

  /** Whether {@code raw} is a version in this scheme. */
  public boolean reads(String raw) {
    return raw != null && pattern.matcher(raw.trim()).matches();
  }

  /**
   * Parses {@code raw} in this scheme; throws {@link IllegalArgumentException} naming it and the
   * scheme when it is not one.
   */
  public EngineVersion parse(String raw) {
    if (!reads(raw)) {
      throw new IllegalArgumentException(
          "engine version " + Quoting.quote(raw) + " is not " + description);
    }
    return EngineVersion.parse(raw);
  }
}
