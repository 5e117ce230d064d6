package ai.gpustack.kvcache.spi;

import java.util.List;
import org.immutables.value.Value;

/** A flag and its values, rendered together or not at all. */
@Value.Immutable
abstract class ArgGroupDef {
  @Value.Parameter
  public abstract String flag();

  @Value.Parameter
  public abstract List<String> values();

  public static ArgGroup toggle(String flag) {
    return ArgGroup.of(flag, List.of());
  }

  /** The flag then its values, as argv tokens. */
  public List<String> tokens() {
    return java.util.stream.Stream.concat(java.util.stream.Stream.of(flag()), values().stream())
        .toList();
  }
}
