package ai.gpustack.kvcache.engine.vllm;

import ai.gpustack.kvcache.spi.ArgvDialect;
import ai.gpustack.kvcache.spi.FlagInventory;
import ai.gpustack.kvcache.spi.FlagSpec;
import ai.gpustack.kvcache.spi.VersionRange;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * Flag inventories written as the changes from one range to the next, the way releases change them:
 * each range runs until the next one starts, and keeps the flags of the one before unless it
 * removes them.
 */
final class InventoryRanges {
  private final Map<String, FlagSpec> flags = new LinkedHashMap<>();
  private final List<FlagInventory> done = new ArrayList<>();
  private String from;
  private ArgvDialect dialect;
  private String source;

  /** Starts a range at {@code version}, with the flags so far and {@code added}. */
  InventoryRanges from(String version, ArgvDialect dialect, String source, FlagSpec... added) {
    close(version);
    this.from = version;
    this.dialect = dialect;
    this.source = source;
    for (FlagSpec flag : added) {
      flags.put(flag.name(), flag);
    }
    return this;
  }

  /** Drops flags from the range being written. */
  InventoryRanges removing(String... names) {
    for (String name : names) {
      if (flags.remove(name) == null) {
        throw new IllegalStateException("no " + name + " to remove from the range at " + from);
      }
    }
    return this;
  }

  /** Every range, the last one open-ended. */
  List<FlagInventory> build() {
    close(null);
    return List.copyOf(done);
  }

  private void close(String until) {
    if (from != null) {
      done.add(
          FlagInventory.builder()
              .versions(VersionRange.of(from, until))
              .dialect(dialect)
              .source(source)
              .addAllFlags(flags.values())
              .build());
    }
  }
}
