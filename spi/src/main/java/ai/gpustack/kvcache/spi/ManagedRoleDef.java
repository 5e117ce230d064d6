package ai.gpustack.kvcache.spi;

import java.util.List;
import java.util.Optional;
import org.immutables.value.Value;

/** A role whose argv the operator owns (no {@code command}): what its command is rendered from. */
@Value.Immutable
abstract class ManagedRoleDef {
  public abstract String model();

  public abstract List<String> extraArgs();

  /** The serving port; the engine's default when absent. */
  public abstract Optional<Integer> port();

  /**
   * The engine version the command is rendered for; an attachment request naming a version names
   * this one.
   */
  public abstract Optional<String> engineVersion();

  /** The cache attachment (its role kind picks the connector's role); absent without a store. */
  public abstract Optional<AttachmentRequest> attachment();

  @Value.Check
  void check() {
    attachment()
        .filter(a -> a.engineVersion().isPresent() && !a.engineVersion().equals(engineVersion()))
        .ifPresent(
            a -> {
              throw new IllegalArgumentException(
                  "the attachment is rendered for engine version "
                      + a.engineVersion().orElse("(newest)")
                      + ", the role for "
                      + engineVersion().orElse("(newest)"));
            });
  }
}
