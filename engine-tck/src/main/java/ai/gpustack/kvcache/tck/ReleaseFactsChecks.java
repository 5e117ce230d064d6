package ai.gpustack.kvcache.tck;

import ai.gpustack.kvcache.spi.Engine;
import ai.gpustack.kvcache.spi.EngineVersion;
import ai.gpustack.kvcache.tck.ReleaseFacts.Release;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;

/**
 * A module's tables against its {@code release-facts.json}, release by release. Each check returns
 * one line per disagreement naming the release and its distribution file, the data file, the
 * spelling or flag and the {@code file:line} in the release, and the table to change; empty when
 * they agree. One entry point for {@link ReleaseFactsTest}; each table's checks live in a class of
 * their own.
 */
final class ReleaseFactsChecks {
  private ReleaseFactsChecks() {}

  /** Versions ascend and every inventory replays to the count the file states. */
  static List<String> fileProblems(ReleaseFacts facts) {
    List<String> out = new ArrayList<>();
    Release previous = null;
    for (Release r : facts.releases()) {
      if (previous != null
          && EngineVersion.parse(previous.version()).compareTo(EngineVersion.parse(r.version()))
              >= 0) {
        out.add(
            facts.resource()
                + " lists "
                + r.version()
                + " after "
                + previous.version()
                + ": rerun"
                + " tools/engine-facts/extract.py, which writes releases in version order");
      }
      if (r.flagCount() >= 0 && r.flags().size() != r.flagCount()) {
        out.add(
            facts.resource()
                + ": the inventory of "
                + r.version()
                + " replays to "
                + r.flags().size()
                + " flags, but the file says "
                + r.flagCount()
                + ": the file was edited by hand; rerun tools/engine-facts/extract.py");
      }
      previous = r;
    }
    return out;
  }

  /** Each release's accepted spellings against the row of {@code dtypeSpellings()} holding it. */
  static List<String> spellingProblems(Engine engine, ReleaseFacts facts) {
    return SpellingChecks.problems(engine, facts);
  }

  /**
   * The KV format of each spelling against what the release's code states ({@link FormatChecks}).
   */
  static List<String> formatProblems(Engine engine, ReleaseFacts facts) {
    return FormatChecks.problems(engine, facts);
  }

  /**
   * Each release's serve parser against the flag inventory holding it ({@link InventoryChecks}).
   */
  static List<String> inventoryProblems(Engine engine, ReleaseFacts facts) {
    return InventoryChecks.problems(engine, facts);
  }

  /**
   * The flags each release's code says change the KV format against the inventory's {@code
   * kvEffect} flags; a flag only named like one must be marked or reviewed ({@code reviewed}: flag
   * → why it leaves the format alone).
   */
  static List<String> kvFlagProblems(
      Engine engine, ReleaseFacts facts, Map<String, String> reviewed) {
    return KvFlagChecks.problems(engine, facts, reviewed);
  }

  /** Each release's dtype report against {@code dtypeReports()} ({@link ReportChecks}). */
  static List<String> reportProblems(Engine engine, ReleaseFacts facts) {
    return ReportChecks.problems(engine, facts);
  }

  /** Sources that say a fact was guessed: a row rests on the release file or says why not. */
  static List<String> guessedSources(Engine engine) {
    return SourceChecks.guessedSources(engine);
  }
}
