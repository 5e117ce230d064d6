package ai.gpustack.kvcache.tck;

import ai.gpustack.kvcache.spi.DtypeReport;
import ai.gpustack.kvcache.spi.DtypeSpellings;
import ai.gpustack.kvcache.spi.Engine;
import ai.gpustack.kvcache.spi.FlagInventory;
import ai.gpustack.kvcache.spi.PlatformFormats;
import ai.gpustack.kvcache.spi.Versioned;
import ai.gpustack.kvcache.tck.ReleaseFacts.Release;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * A table row's {@code source} against what it was read from: it names the first release it is
 * checked against and every file its facts rest on, and says no fact was guessed.
 */
final class SourceChecks {
  /** Words that mark a source as a guess rather than a file read. */
  private static final Pattern GUESS =
      Pattern.compile("\\b(not pinned|not read|inferred)\\b", Pattern.CASE_INSENSITIVE);

  private SourceChecks() {}

  /** Sources that say a fact was guessed: a row rests on the release file or says why not. */
  static List<String> guessedSources(Engine engine) {
    List<String> out = new ArrayList<>();
    for (DtypeSpellings e : engine.dtypeSpellings().entries()) {
      guess("dtypeSpellings() for " + e.versions(), e.source(), out);
      for (PlatformFormats p : e.platforms()) {
        guess("dtypeSpellings() for " + e.versions() + " on " + p.platform(), p.source(), out);
      }
    }
    for (FlagInventory i : engine.flagInventories()) {
      guess("flagInventories() for " + i.versions(), i.source(), out);
    }
    for (DtypeReport d : engine.dtypeReports()) {
      guess("dtypeReports() for " + d.versions(), d.source(), out);
    }
    return out;
  }

  /**
   * A row's source names {@code first}, the first release it was read from, and {@code files}, the
   * files it was read in; {@code method} is the table's, for messages.
   */
  static List<String> sourceNames(
      ReleaseFacts facts, String method, Versioned row, Release first, Set<String> files) {
    List<String> out = new ArrayList<>();
    if (!Pattern.compile(
            "(?<![\\w.])v?" + Pattern.quote(first.version()) + "(?!\\.?\\d|\\.?post|rc)")
        .matcher(row.source())
        .find()) {
      out.add(
          method
              + " for "
              + row.versions()
              + " is first checked against "
              + first.describe(facts.engine())
              + ", which its source does not name: \""
              + row.source()
              + "\"");
    }
    for (String file : files) {
      if (!file.isEmpty() && !row.source().contains(file)) {
        out.add(
            method
                + " for "
                + row.versions()
                + " rests on "
                + file
                + " in some of its releases ("
                + facts.resource()
                + "), which its source does not name: \""
                + row.source()
                + "\"");
      }
    }
    return out;
  }

  private static void guess(String what, String source, List<String> out) {
    Matcher m = GUESS.matcher(source);
    if (m.find()) {
      out.add(
          "the source of "
              + what
              + " says \""
              + m.group()
              + "\": read the release file (tools/engine-facts) and name it, or say why the"
              + " release's code cannot give the fact: "
              + source);
    }
  }
}
