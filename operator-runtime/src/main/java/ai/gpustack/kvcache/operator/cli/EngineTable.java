package ai.gpustack.kvcache.operator.cli;

import ai.gpustack.kvcache.api.Json;
import ai.gpustack.kvcache.api.KvFormat;
import ai.gpustack.kvcache.spi.DtypeSpellings;
import ai.gpustack.kvcache.spi.Engine;
import ai.gpustack.kvcache.spi.EngineRegistry;
import ai.gpustack.kvcache.spi.FlagInventory;
import ai.gpustack.kvcache.spi.FlagSpec;
import ai.gpustack.kvcache.spi.PlatformFormats;
import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.io.UncheckedIOException;
import java.util.ArrayList;
import java.util.Collection;
import java.util.List;
import java.util.Map;
import java.util.TreeSet;

/**
 * The registered engines and their dtype spellings, as text for people, JSON for scripts, and the
 * Markdown of {@code docs/engines.md}. Deterministic: the same engines give the same bytes.
 */
final class EngineTable {
  private final EngineRegistry registry;

  EngineTable(EngineRegistry registry) {
    this.registry = registry;
  }

  String text() {
    StringBuilder out = new StringBuilder();
    List<String[]> engines = new ArrayList<>();
    engines.add(new String[] {"ENGINE", "PARSER", "MODULE", "PROVIDER"});
    for (Engine e : registry.engines()) {
      engines.add(
          new String[] {e.id(), e.dialect().parser(), e.artifact(), e.getClass().getName()});
    }
    out.append(columns(engines));
    for (Engine e : registry.engines()) {
      out.append('\n')
          .append(e.displayName())
          .append(' ')
          .append(String.join(" ", flagNames(e)))
          .append(" spellings; versions are ")
          .append(e.versionScheme().description())
          .append('\n');
      List<String[]> rows = new ArrayList<>();
      rows.add(new String[] {"  VERSIONS", "SPELLING:KV FORMAT", "SOURCE"});
      for (DtypeSpellings s : e.dtypeSpellings().entries()) {
        rows.add(new String[] {"  " + s.versions(), pairs(s.spellings(), s.formats()), s.source()});
        if (!s.engineValues().isEmpty()) {
          rows.add(new String[] {"    engine values", translations(s), "rendered on every flag"});
        }
        for (PlatformFormats p : s.platforms()) {
          rows.add(
              new String[] {
                "    on " + p.platform(), pairs(p.formats().keySet(), p.formats()), p.source()
              });
        }
      }
      out.append(columns(rows));
      List<String[]> flags = new ArrayList<>();
      flags.add(new String[] {"  VERSIONS", "FLAGS THAT CHANGE THE KV FORMAT", "PARSER"});
      for (FlagInventory inventory : e.flagInventories()) {
        flags.add(
            new String[] {
              "  " + inventory.versions(),
              inventory.kvFormatFlags().isEmpty()
                  ? "-"
                  : String.join(
                      " ", inventory.kvFormatFlags().stream().map(FlagSpec::name).toList()),
              inventory.dialect().orElse(e.dialect()).parser()
            });
      }
      out.append(columns(flags));
      out.append("  launched by: ")
          .append(String.join(", ", new TreeSet<>(e.launchPrograms())))
          .append('\n');
    }
    out.append("\nAccepted by every registered engine (newest tables): ")
        .append(String.join(" ", registry.acceptedByEveryRegisteredEngine()))
        .append('\n');
    return out.toString();
  }

  String json() {
    ObjectNode root = Json.newMapper().createObjectNode();
    ArrayNode engines = root.putArray("engines");
    for (Engine e : registry.engines()) {
      ObjectNode node = engines.addObject();
      node.put("id", e.id())
          .put("displayName", e.displayName())
          .put("artifact", e.artifact())
          .put("provider", e.getClass().getName())
          .put("parser", e.dialect().parser())
          .put("dtypeFlag", e.dtypeFlag())
          .put("versionScheme", e.versionScheme().name());
      e.dtypeFlags().forEach(node.putArray("dtypeFlags")::add);
      ObjectNode aliases = node.putObject("dtypeFlagAliases");
      for (String flag : e.dtypeFlags()) {
        aliases(e, flag).forEach(aliases.putArray(flag)::add);
      }
      new TreeSet<>(e.launchPrograms()).forEach(node.putArray("launchPrograms")::add);
      ArrayNode spellings = node.putArray("spellings");
      for (DtypeSpellings s : e.dtypeSpellings().entries()) {
        ObjectNode entry = spellings.addObject();
        entry.put("versions", s.versions().toString());
        s.versions().from().ifPresent(v -> entry.put("from", v.raw()));
        s.versions().until().ifPresent(v -> entry.put("until", v.raw()));
        s.spellings().forEach(entry.putArray("accepted")::add);
        ObjectNode formats = entry.putObject("formats");
        s.formats().forEach((spelling, format) -> formats.put(spelling, format.toString()));
        ObjectNode values = entry.putObject("engineValues");
        s.engineValues().forEach(values::put);
        ArrayNode platforms = entry.putArray("platforms");
        for (PlatformFormats p : s.platforms()) {
          ObjectNode platform = platforms.addObject().put("platform", p.platform());
          ObjectNode on = platform.putObject("formats");
          p.formats().forEach((spelling, format) -> on.put(spelling, format.toString()));
          platform.put("source", p.source());
        }
        entry.put("source", s.source());
      }
      ArrayNode inventories = node.putArray("kvFormatFlags");
      for (FlagInventory inventory : e.flagInventories()) {
        ObjectNode range = inventories.addObject();
        range.put("versions", inventory.versions().toString());
        range.put("parser", inventory.dialect().orElse(e.dialect()).parser());
        ArrayNode list = range.putArray("flags");
        inventory
            .kvFormatFlags()
            .forEach(
                f ->
                    list.addObject()
                        .put("flag", f.name())
                        .put("effect", f.kvEffect().orElseThrow()));
        range.put("source", inventory.source());
      }
    }
    registry.acceptedByEveryRegisteredEngine().forEach(root.putArray("portable")::add);
    try {
      return Json.newMapper().writerWithDefaultPrettyPrinter().writeValueAsString(root) + "\n";
    } catch (JsonProcessingException e) {
      throw new UncheckedIOException(e);
    }
  }

  String markdown() {
    StringBuilder md = new StringBuilder();
    md.append(
            "<!-- Generated from the engine modules by `kvcache engines -o markdown`; do not edit. -->\n")
        .append("# Engine dtype spellings\n\n")
        .append(
            "Each engine module ships the `--kv-cache-dtype` values its engine's parser accepts, per\n")
        .append(
            "engine version, with the upstream file and version they were read from. A Binding's\n")
        .append("`spec.domain.dtype` must be one of these for every engine attached through the\n")
        .append(
            "Binding. It reaches the engine verbatim unless the module translates it: `bfloat16 →\n")
        .append(
            "bf16` means the Binding says `bfloat16` and the engine is given `bf16` on every dtype\n")
        .append("flag, and a running replica reporting `bf16` reads back as `bfloat16`.\n\n")
        .append("## Accepted by every registered engine\n\n");
    registry
        .acceptedByEveryRegisteredEngine()
        .forEach(s -> md.append("- `").append(s).append("`\n"));
    md.append(
            "\n`auto` binds nothing (each engine resolves it from its model), so a new Binding may not\n")
        .append("declare it while `model-deployment-kv-cache-dtype-owned` is on.\n")
        .append("\n## KV formats\n\n")
        .append(
            "The bytes a spelling stores, as far as another engine reading them must agree:\n\n")
        .append("| Format | Bytes |\n|---|---|\n");
    for (KvFormat f : KvFormat.known()) {
      md.append("| `").append(f.id()).append("` | ").append(f.description()).append(" |\n");
    }
    for (Engine e : registry.engines()) {
      markdownEngine(e, md);
    }
    return md.toString();
  }

  /** One engine's section: its module and flags, its spelling tables, its KV-format flags. */
  private static void markdownEngine(Engine e, StringBuilder md) {
    md.append("\n## ")
        .append(e.displayName())
        .append("\n\n")
        .append("Module `")
        .append(e.artifact())
        .append(e.dtypeFlags().size() == 1 ? "`; flag `" : "`; flags `")
        .append(String.join("`, `", flagNames(e)))
        .append("`; versions: ")
        .append(e.versionScheme().description())
        .append("; parser: ")
        .append(e.dialect().parser())
        .append("; launched by `")
        .append(String.join("`, `", new TreeSet<>(e.launchPrograms())))
        .append("`.\n\n")
        .append("| Versions | Spelling → KV format | Source |\n|---|---|---|\n");
    for (DtypeSpellings s : e.dtypeSpellings().entries()) {
      markdownSpellings(s, md);
    }
    md.append("\nFlags besides the dtype flag that change the KV format (an attached workload")
        .append(" passing one is admitted with a warning):\n\n")
        .append("| Versions | Parser | Flags | Source |\n|---|---|---|---|\n");
    for (FlagInventory inventory : e.flagInventories()) {
      List<String> flags = new ArrayList<>();
      inventory
          .kvFormatFlags()
          .forEach(f -> flags.add("`" + f.name() + "` " + f.kvEffect().orElseThrow()));
      md.append("| `")
          .append(inventory.versions())
          .append("` | ")
          .append(inventory.dialect().orElse(e.dialect()).parser())
          .append(" | ")
          .append(flags.isEmpty() ? "none" : cell(String.join("<br>", flags)))
          .append(" | ")
          .append(cell(inventory.source()))
          .append(" |\n");
    }
  }

  /** One row of an engine's spelling table: the versions, each spelling's format, the sources. */
  private static void markdownSpellings(DtypeSpellings s, StringBuilder md) {
    md.append("| `").append(s.versions()).append("` | ");
    List<String> quoted = new ArrayList<>();
    s.spellings()
        .forEach(
            x ->
                quoted.add(
                    "`"
                        + x
                        + (s.engineValues().containsKey(x)
                            ? " → " + s.engineValue(x) + "` (engine value)"
                            : "`")
                        + s.format(x).map(f -> " → `" + f + "`").orElse(" → (none)")));
    md.append(String.join("<br>", quoted));
    for (PlatformFormats p : s.platforms()) {
      md.append("<br>on ").append(p.platform()).append(": ");
      List<String> on = new ArrayList<>();
      p.formats().forEach((x, f) -> on.add("`" + x + "` → `" + f + "`"));
      md.append(String.join(", ", on));
    }
    md.append(" | ").append(cell(s.source()));
    s.platforms().forEach(p -> md.append("; ").append(cell(p.source())));
    md.append(" |\n");
  }

  /** Each dtype flag with its aliases: {@code --cache-type-k (-ctk)}. */
  private static List<String> flagNames(Engine e) {
    List<String> out = new ArrayList<>();
    for (String flag : e.dtypeFlags()) {
      List<String> aliases = aliases(e, flag);
      out.add(aliases.isEmpty() ? flag : flag + " (" + String.join(", ", aliases) + ")");
    }
    return out;
  }

  /** The aliases of {@code flag} in the newest inventory. */
  private static List<String> aliases(Engine e, String flag) {
    return e.flagInventory(java.util.Optional.empty())
        .flag(flag)
        .map(FlagSpec::aliases)
        .orElse(List.of());
  }

  /** {@code bfloat16 → bf16, float16 → f16}. */
  private static String translations(DtypeSpellings s) {
    List<String> out = new ArrayList<>();
    s.engineValues().forEach((spelling, value) -> out.add(spelling + " → " + value));
    return String.join(", ", out);
  }

  private static String cell(String text) {
    return text.replace("|", "\\|");
  }

  /** {@code spelling:format} for each spelling, the format {@code (none)} where unmapped. */
  private static String pairs(Collection<String> spellings, Map<String, KvFormat> formats) {
    List<String> out = new ArrayList<>();
    for (String spelling : spellings) {
      KvFormat f = formats.get(spelling);
      out.add(spelling + ":" + (f == null ? "(none)" : f));
    }
    return String.join(" ", out);
  }

  private static String columns(List<String[]> rows) {
    int[] width = new int[rows.get(0).length];
    for (String[] row : rows) {
      for (int i = 0; i < row.length - 1; i++) {
        width[i] = Math.max(width[i], row[i].length());
      }
    }
    StringBuilder out = new StringBuilder();
    for (String[] row : rows) {
      for (int i = 0; i < row.length; i++) {
        out.append(
            i < row.length - 1 ? String.format("%-" + (width[i] + 2) + "s", row[i]) : row[i]);
      }
      out.append('\n');
    }
    return out.toString();
  }
}
