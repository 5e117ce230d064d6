package ai.gpustack.kvcache.tck;

import ai.gpustack.kvcache.spi.ArgvDialect;
import ai.gpustack.kvcache.spi.EngineVersion;
import ai.gpustack.kvcache.spi.FlagArity;
import ai.gpustack.kvcache.spi.FlagInventory;
import ai.gpustack.kvcache.spi.FlagOccurrence;
import ai.gpustack.kvcache.spi.FlagReader;
import ai.gpustack.kvcache.spi.FlagSpec;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import com.fasterxml.jackson.databind.node.TextNode;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;

/**
 * Writes {@link ArgparseDifferentialTest}'s generated cases of one inventory range, with what the
 * flag reader read in each, to {@code <folder>/<engine>-range-<n>.json}, for the release-parser
 * oracle ({@code tools/engine-facts/oracle.py --cases}). Per case: {@code argv}, and {@code
 * reader}: {@code values} (per target: the last value of a one-value flag, {@code true} for any
 * other flag the argv sets, {@code null} when not set), {@code ambiguous} (per target with
 * ambiguous prefixes: each one's candidates, in argv order) and {@code missing} (the targets passed
 * without the value they take): the facts {@link ArgparseDifferentialTest} compares with argparse's
 * verdict.
 */
final class CaseDump {
  private static final ObjectMapper JSON = new ObjectMapper();

  private final Path folder;

  private CaseDump(Path folder) {
    this.folder = folder;
  }

  /** The dump to the folder {@code property} names, or null when it is not set. */
  static CaseDump fromProperty(String property) {
    String folder = System.getProperty(property, "");
    return folder.isBlank() ? null : new CaseDump(Path.of(folder));
  }

  void write(
      String engine,
      int range,
      FlagInventory inventory,
      ArgvDialect dialect,
      List<FlagSpec> targets,
      List<List<String>> cases,
      FlagReader reader) {
    ObjectNode out = JSON.createObjectNode();
    out.put("engine", engine).put("versions", inventory.versions().toString());
    out.put("from", inventory.versions().from().map(EngineVersion::raw).orElse(null));
    out.put("until", inventory.versions().until().map(EngineVersion::raw).orElse(null));
    out.putObject("dialect")
        .put("parser", dialect.parser())
        .put("underscoresAsDashes", dialect.underscoresAsDashes())
        .put("dottedMembers", dialect.dottedMembers())
        .put("abbreviations", dialect.abbreviations());
    ArrayNode names = out.putArray("targets");
    targets.forEach(t -> names.addObject().put("name", t.name()).put("arity", t.arity().name()));
    ArrayNode all = out.putArray("cases");
    for (List<String> argv : cases) {
      ObjectNode c = all.addObject();
      argv.forEach(c.putArray("argv")::add);
      c.set("reader", readerFacts(reader, targets, argv));
    }
    try {
      Files.createDirectories(folder);
      JSON.writeValue(folder.resolve(engine + "-range-" + range + ".json").toFile(), out);
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  /** What {@code reader} read in {@code argv}: values, ambiguous prefixes, missing values. */
  private static ObjectNode readerFacts(
      FlagReader reader, List<FlagSpec> targets, List<String> argv) {
    ObjectNode read = JSON.createObjectNode();
    ObjectNode values = read.putObject("values");
    ObjectNode ambiguous = JSON.createObjectNode();
    ArrayNode missing = JSON.createArrayNode();
    List<String> parsed = reader.asParsed(argv);
    for (FlagSpec target : targets) {
      String flag = target.name();
      List<FlagOccurrence> found = reader.find(parsed, flag);
      if (target.arity() == FlagArity.ONE) {
        values.put(flag, reader.lastValue(parsed, flag).orElse(null));
      } else if (reader.names(parsed, flag)) {
        values.put(flag, true);
      } else {
        values.putNull(flag);
      }
      for (FlagOccurrence o : found) {
        if (o.ambiguous()) {
          ArrayNode lists = ambiguous.has(flag) ? (ArrayNode) ambiguous.get(flag) : null;
          (lists == null ? ambiguous.putArray(flag) : lists)
              .addArray()
              .addAll(o.token().candidates().stream().map(TextNode::valueOf).toList());
        }
      }
      if (target.arity() != FlagArity.NONE
          && found.stream().anyMatch(o -> !o.ambiguous() && o.value().isEmpty())) {
        missing.add(flag);
      }
    }
    if (!ambiguous.isEmpty()) {
      read.set("ambiguous", ambiguous);
    }
    if (!missing.isEmpty()) {
      read.set("missing", missing);
    }
    return read;
  }
}
