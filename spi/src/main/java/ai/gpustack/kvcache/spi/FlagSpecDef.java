package ai.gpustack.kvcache.spi;

import ai.gpustack.kvcache.api.Quoting;
import java.util.List;
import java.util.Optional;
import org.immutables.value.Value;

/**
 * One option of an engine's command line: its canonical long spelling and the other names the
 * parser reads as it ({@code -ctk} for llama.cpp's {@code --cache-type-k}).
 */
@Value.Immutable
abstract class FlagSpecDef {
  @Value.Parameter
  public abstract String name();

  @Value.Parameter
  public abstract FlagArity arity();

  /**
   * Other names the parser reads as this flag, exactly as written: short options ({@code -ctk}) and
   * older long spellings ({@code --cache-type-k-draft}). Each is read in every form the engine's
   * {@link ArgvDialect} allows; none is abbreviated or has its underscores rewritten.
   */
  public abstract List<String> aliases();

  /** The canonical name, then the aliases. */
  public List<String> names() {
    List<String> names = new java.util.ArrayList<>(List.of(name()));
    names.addAll(aliases());
    return List.copyOf(names);
  }

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
              + " is not a canonical long option such as --kv-cache-dtype; declare a short"
              + " option as an alias: FlagSpec.value(\"--cache-type-k\").withAliases(\"-ctk\")");
    }
    for (String alias : aliases()) {
      if (!alias.matches("--?[A-Za-z0-9][A-Za-z0-9_-]*") || alias.equals(name())) {
        throw new IllegalArgumentException(
            "alias "
                + Quoting.quote(alias)
                + " of flag "
                + name()
                + " is not an option spelling such as -ctk or --cache-type-k-draft");
      }
    }
    if (aliases().stream().distinct().count() != aliases().size()) {
      throw new IllegalArgumentException("flag " + name() + " lists an alias twice");
    }
  }
}
