package ai.gpustack.kvcache.tck;

import ai.gpustack.kvcache.spi.Engine;
import ai.gpustack.kvcache.spi.EngineVersion;
import ai.gpustack.kvcache.spi.FlagInventory;
import ai.gpustack.kvcache.tck.ReleaseFacts.KvFlag;
import ai.gpustack.kvcache.tck.ReleaseFacts.Release;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.TreeSet;

/**
 * The flags each release's code says change the KV format against the inventory's {@code kvEffect}
 * flags: each is marked where the release has it, none is marked that the release lacks, and a flag
 * only named like one is marked or reviewed.
 */
final class KvFlagChecks {
  private KvFlagChecks() {}

  /**
   * Every disagreement, from the first release the first inventory covers; {@code reviewed}: flag →
   * why it leaves the format alone.
   */
  static List<String> problems(Engine engine, ReleaseFacts facts, Map<String, String> reviewed) {
    List<String> out = new ArrayList<>();
    EngineVersion first =
        engine.flagInventories().get(0).versions().from().orElse(EngineVersion.parse("0"));
    for (Release r : facts.releases()) {
      if (r.dtypeFlag().isEmpty()
          || r.kvFlags().isEmpty()
          || EngineVersion.parse(r.version()).compareTo(first) < 0) {
        continue;
      }
      FlagInventory inventory = engine.flagInventory(Optional.of(r.version()));
      Set<String> marked = new TreeSet<>();
      inventory.kvFormatFlags().forEach(f -> marked.add(f.name()));
      String where = facts.where(r);
      out.addAll(unmarked(where, r, inventory, marked, reviewed));
      out.addAll(markedButMissing(where, facts, r, inventory, marked));
    }
    return out;
  }

  /** The release's KV-format flags the inventory does not mark (unless reviewed). */
  private static List<String> unmarked(
      String where,
      Release r,
      FlagInventory inventory,
      Set<String> marked,
      Map<String, String> reviewed) {
    List<String> out = new ArrayList<>();
    for (KvFlag k : r.kvFlags().get()) {
      if (marked.contains(k.flag())) {
        continue;
      }
      if (k.listed()) {
        out.add(
            where
                + ": the release has "
                + k.flag()
                + " ("
                + k.at()
                + "), which changes the KV format, but flagInventories() for "
                + inventory.versions()
                + " does not mark it (FlagSpec.withKvEffect)");
      } else if (!reviewed.containsKey(k.flag())) {
        out.add(
            where
                + ": "
                + k.flag()
                + " ("
                + k.at()
                + ") is named like a flag that changes the KV format ("
                + k.why()
                + "): mark it withKvEffect in flagInventories() for "
                + inventory.versions()
                + ", or say in reviewedKvFormatCandidates() why it does not");
      }
    }
    return out;
  }

  /** The inventory's marked flags the release's extraction did not find. */
  private static List<String> markedButMissing(
      String where, ReleaseFacts facts, Release r, FlagInventory inventory, Set<String> marked) {
    Set<String> found = new TreeSet<>();
    r.kvFlags().get().forEach(k -> found.add(k.flag()));
    List<String> out = new ArrayList<>();
    for (String f : marked) {
      if (!found.contains(f)) {
        out.add(
            where
                + ": flagInventories() for "
                + inventory.versions()
                + " marks "
                + f
                + " as changing the KV format, but "
                + (r.flags().containsKey(f)
                    ? "the extraction did not pick it out: add it to tools/engine-facts"
                    : "the release does not have it")
                + " ("
                + facts.resource()
                + ")");
      }
    }
    return out;
  }
}
