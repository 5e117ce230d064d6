package ai.gpustack.kvcache.spi;

import ai.gpustack.kvcache.api.Quoting;
import java.util.Optional;
import org.immutables.value.Value;

/** One long option of an engine's command line, in its canonical spelling. */
@Value.Immutable
abstract class FlagSpecDef {
  @Value.Parameter
  public abstract String name();

  @Value.Parameter
  public abstract FlagArity arity();

  /**
   * What the flag changes in the KV cache's representation when passed beside the dtype flag (
   * {@code keeps the listed layers at the model's dtype}); empty for flags that change nothing
   * there. An attached workload passing such a flag is admitted with a warning naming this.
   */
  public abstract Optional<String> kvEffect();

  /** Whether the flag changes the KV representation. */
  public boolean changesKvFormat() {
    return kvEffect().isPresent();
  }

  public static FlagSpec value(String name) {
    return FlagSpec.of(name, FlagArity.ONE);
  }

  public static FlagSpec toggle(String name) {
    return FlagSpec.of(name, FlagArity.NONE);
  }

  public static FlagSpec list(String name) {
    return FlagSpec.of(name, FlagArity.ONE_OR_MORE);
  }

  /** A flag taking any number of values, none included (argparse {@code nargs="*"}). */
  public static FlagSpec optionalList(String name) {
    return FlagSpec.of(name, FlagArity.ZERO_OR_MORE);
  }

  @Value.Check
  void check() {
    if (!name().matches("--[a-z0-9][a-z0-9_-]*")) {
      throw new IllegalArgumentException(
          "flag "
              + Quoting.quote(name())
              + " is not a canonical long option such as --kv-cache-dtype");
    }
  }
}
