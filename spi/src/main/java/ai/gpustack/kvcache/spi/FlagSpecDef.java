package ai.gpustack.kvcache.spi;

import ai.gpustack.kvcache.api.Quoting;
import org.immutables.value.Value;

/** One long option of an engine's command line, in its canonical spelling. */
@Value.Immutable
abstract class FlagSpecDef {
  @Value.Parameter
  public abstract String name();

  @Value.Parameter
  public abstract FlagArity arity();

  public static FlagSpec value(String name) {
    return FlagSpec.of(name, FlagArity.ONE);
  }

  public static FlagSpec toggle(String name) {
    return FlagSpec.of(name, FlagArity.NONE);
  }

  public static FlagSpec list(String name) {
    return FlagSpec.of(name, FlagArity.ONE_OR_MORE);
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
