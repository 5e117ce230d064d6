package ai.gpustack.kvcache.spi;

import java.util.Optional;
import org.immutables.value.Value;

/**
 * Engine versions from {@code from} (inclusive) until {@code until} (exclusive); open when absent.
 */
@Value.Immutable
abstract class VersionRangeDef {
  public abstract Optional<EngineVersion> from();

  public abstract Optional<EngineVersion> until();

  /** Every version. */
  public static VersionRange any() {
    return VersionRange.builder().build();
  }

  /** {@code [from, until)}; either may be null for an open end. */
  public static VersionRange of(String from, String until) {
    return VersionRange.builder()
        .from(Optional.ofNullable(from).map(EngineVersion::parse))
        .until(Optional.ofNullable(until).map(EngineVersion::parse))
        .build();
  }

  public boolean contains(EngineVersion v) {
    return from().map(f -> v.compareTo(f) >= 0).orElse(true)
        && until().map(u -> v.compareTo(u) < 0).orElse(true);
  }

  @Value.Check
  void check() {
    if (from().isPresent() && until().isPresent() && from().get().compareTo(until().get()) >= 0) {
      throw new IllegalArgumentException("empty version range " + this);
    }
  }

  /** {@code >=0.11.0 <0.18.0}, {@code >=0.29.0}, {@code <0.4.2} or {@code any}. */
  @Override
  public String toString() {
    if (from().isEmpty() && until().isEmpty()) {
      return "any";
    }
    StringBuilder s = new StringBuilder();
    from().ifPresent(f -> s.append(">=").append(f));
    until().ifPresent(u -> s.append(s.length() > 0 ? " " : "").append("<").append(u));
    return s.toString();
  }
}
