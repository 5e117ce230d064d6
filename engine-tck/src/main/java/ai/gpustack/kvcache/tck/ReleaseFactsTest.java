package ai.gpustack.kvcache.tck;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.fail;

import ai.gpustack.kvcache.spi.Engine;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.ConcurrentHashMap;
import java.util.regex.Pattern;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Nested;
import org.junit.jupiter.api.Test;

/**
 * A module's tables against the release files themselves: its {@code release-facts.json}, written
 * by {@code tools/engine-facts/extract.py} from every release on PyPI, is compared release by
 * release with {@code dtypeSpellings()}, {@code flagInventories()} and {@code dtypeReports()}. Runs
 * in the default test run from the committed file (no network, no Python); a failure names the
 * release, its distribution file, the data file, the spelling or flag, the {@code file:line} in the
 * release, and the table to change.
 *
 * <pre>{@code
 * class MyEngineReleaseFactsTest extends ReleaseFactsTest {
 *   @Override
 *   protected Engine engine() {
 *     return new MyEngine();
 *   }
 * }
 * }</pre>
 */
public abstract class ReleaseFactsTest {
  private static final Map<String, ReleaseFacts> READ = new ConcurrentHashMap<>();
  private static final Pattern FINAL = Pattern.compile("\\d+(\\.\\d+)*(\\.post\\d+)?");

  /** The engine under test. */
  protected abstract Engine engine();

  /** The data file, a classpath resource next to the engine's class. */
  protected String factsResource() {
    return "release-facts.json";
  }

  /**
   * Flags the extraction picked out by name as possibly changing the KV format ({@code
   * --speculative-draft-kv-cache-dtype}) that were read and do not: flag → why. Every other such
   * flag must be marked {@code withKvEffect} where the release has it.
   */
  protected Map<String, String> reviewedKvFormatCandidates() {
    return Map.of();
  }

  /** The facts, read once per engine class. */
  protected final ReleaseFacts facts() {
    Class<?> anchor = engine().getClass();
    return READ.computeIfAbsent(
        anchor.getName() + "/" + factsResource(), k -> ReleaseFacts.read(anchor, factsResource()));
  }

  /** Fails listing every problem, one a line, or passes when there is none. */
  protected static void assertNone(String what, List<String> problems) {
    if (!problems.isEmpty()) {
      fail(
          problems.size()
              + " "
              + what
              + ":\n- "
              + String.join("\n- ", problems.subList(0, Math.min(problems.size(), 60)))
              + (problems.size() > 60 ? "\n- ... and " + (problems.size() - 60) + " more" : ""));
    }
  }

  @Nested
  @DisplayName("the data file is the extraction's own output")
  class TheFile {
    @Test
    void releases_ascend_and_every_inventory_replays_to_its_stated_count() {
      assertNone("problems in " + factsResource(), ReleaseFactsChecks.fileProblems(facts()));
    }
  }

  @Nested
  @DisplayName("each release accepts exactly the spellings its row accepts, stored as it says")
  class Spellings {
    @Test
    void every_release_accepts_what_its_row_accepts_and_the_row_names_its_files() {
      assertNone(
          "spelling rows that disagree with the releases",
          ReleaseFactsChecks.spellingProblems(engine(), facts()));
    }

    @Test
    void every_format_agrees_with_what_the_release_code_states() {
      assertNone(
          "KV formats that disagree with the releases",
          ReleaseFactsChecks.formatProblems(engine(), facts()));
    }
  }

  @Nested
  @DisplayName("each release's parser reads every flag the project reads as its inventory says")
  class Inventories {
    @Test
    void every_listed_flag_exists_and_every_prefix_resolves_as_in_the_release() {
      assertNone(
          "flag inventories that disagree with the releases",
          ReleaseFactsChecks.inventoryProblems(engine(), facts()));
    }

    @Test
    void every_flag_that_changes_the_kv_format_is_marked_where_the_release_has_it() {
      assertNone(
          "KV-format flags that disagree with the releases",
          ReleaseFactsChecks.kvFlagProblems(engine(), facts(), reviewedKvFormatCandidates()));
    }
  }

  @Nested
  @DisplayName("each release's dtype report is read where it serves it")
  class Reports {
    @Test
    void every_report_row_reads_a_route_or_metric_the_release_serves() {
      assertNone(
          "dtype reports that disagree with the releases",
          ReleaseFactsChecks.reportProblems(engine(), facts()));
    }
  }

  @Nested
  @DisplayName("a role naming no engine version runs a release the tables were read from")
  class Images {
    @Test
    void the_default_image_is_the_newest_final_release_not_latest() {
      Optional<String> unversioned = engine().defaultImage(Optional.empty());
      if (unversioned.isEmpty()) {
        return; // every role names its image
      }
      ReleaseFacts.Release newest =
          facts().releases().stream()
              .filter(r -> !r.yanked() && FINAL.matcher(r.version()).matches())
              .reduce((a, b) -> b)
              .orElseThrow(() -> new AssertionError(factsResource() + " lists no final release"));
      assertEquals(
          engine().defaultImage(Optional.of(newest.version())),
          unversioned,
          "defaultImage(Optional.empty()) must name "
              + newest.describe(facts().engine())
              + ", the newest final release in "
              + factsResource()
              + ": a moving tag such as latest runs a release the tables have not read");
    }
  }

  @Nested
  @DisplayName("every source names what it was read from")
  class Sources {
    @Test
    void no_source_rests_on_a_guess() {
      assertNone("sources resting on a guess", ReleaseFactsChecks.guessedSources(engine()));
    }
  }
}
