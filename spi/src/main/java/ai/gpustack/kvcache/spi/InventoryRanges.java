package ai.gpustack.kvcache.spi;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * Flag inventories written as the changes from one range to the next, the way releases change them:
 * each range runs until the next one starts, and keeps the flags of the one before unless it
 * removes them.
 *
 * <pre>{@code
 * new InventoryRanges()
 *     .from("0.3.0", dialect, "release 0.3.0: arg_utils.py", FlagSpec.value("--kv-cache-dtype"))
 *     .from("0.5.0", dialect, "release 0.5.0: arg_utils.py", FlagSpec.toggle("--new-flag"))
 *     .removing("--old-flag")
 *     .build();
 * }</pre>
 */
public final class InventoryRanges {
  private final Map<String, FlagSpec> flags = new LinkedHashMap<>();
  private final List<FlagInventory> done = new ArrayList<>();
  private String from;
  private ArgvDialect dialect;
  private String source;

  /** Starts a range at {@code version}, with the flags so far and {@code added}. */
  public InventoryRanges from(
      String version, ArgvDialect dialect, String source, FlagSpec... added) {
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
  public InventoryRanges removing(String... names) {
    for (String name : names) {
      if (flags.remove(name) == null) {
        throw new IllegalStateException("no " + name + " to remove from the range at " + from);
      }
    }
    return this;
  }

  /** Every range, the last one open-ended. */
  public List<FlagInventory> build() {
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
