package com.example.kvcache.lmdeploy;

import ai.gpustack.kvcache.api.KvFormat;
import ai.gpustack.kvcache.spi.ArgvDialect;
import ai.gpustack.kvcache.spi.AttachmentRequest;
import ai.gpustack.kvcache.spi.CacheAttachment;
import ai.gpustack.kvcache.spi.DtypeSpellings;
import ai.gpustack.kvcache.spi.Engine;
import ai.gpustack.kvcache.spi.EngineVersion;
import ai.gpustack.kvcache.spi.FlagArity;
import ai.gpustack.kvcache.spi.FlagInventory;
import ai.gpustack.kvcache.spi.FlagSpec;
import ai.gpustack.kvcache.spi.SpellingTable;
import ai.gpustack.kvcache.spi.VersionRange;
import com.google.auto.service.AutoService;
import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStream;
import java.io.InputStreamReader;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;

/**
 * LMDeploy's OpenAI server, {@code lmdeploy serve api_server <model>}. Its KV cache type is not a
 * dtype name but {@code --quant-policy}: an integer code in every release, with names beside the
 * codes from 0.14.0 ({@code 8} and {@code int8} are one format, as are {@code 16}, {@code fp8} and
 * {@code fp8_e4m3}). A code's meaning changed once: before 0.4.0, {@code 4} selected an 8-bit cache.
 * {@code 0} (and {@code none}) keeps the model's dtype, the way {@code auto} does elsewhere.
 *
 * <p>The flag lists and the values {@code --quant-policy} accepts are data, {@code
 * api_server-flags.tsv}, extracted from every release's wheel on PyPI by running LMDeploy's own
 * parser ({@code tools/extract_flags.py --release-facts release-facts.json}); what each code stores
 * is read from the release's docs and kernels, cited in {@link #format}. The parser is plain argparse until 0.9.2 and LMDeploy's
 * FlexibleArgumentParser (underscores as dashes, dotted members) from then on.
 *
 * <p>This module hands the dtype over only. How LMDeploy attaches to a Mooncake store is not
 * something this example claims, so it renders no connector arguments and owns no keys.
 */
@AutoService(Engine.class)
public final class LmdeployEngine implements Engine {
  static final String QUANT_POLICY = "--quant-policy";

  private static final String FLAGS = "api_server-flags.tsv";
  private static final EngineVersion ONLINE_QUANT = EngineVersion.parse("0.4.0");

  private static final ArgvDialect FLEXIBLE =
      ArgvDialect.builder()
          .parser("LMDeploy FlexibleArgumentParser (Python argparse)")
          .inlineValues(true)
          .underscoresAsDashes(true)
          .dottedMembers(true)
          .abbreviations(true)
          .doubleDashEndsOptions(true)
          .build();

  private static final List<ParserRange> RANGES = read();
  private static final List<FlagInventory> INVENTORIES =
      RANGES.stream().map(ParserRange::inventory).toList();
  private static final SpellingTable SPELLINGS = spellings(RANGES);

  /** One range of releases whose {@code api_server} parser is the same, as the TSV holds it. */
  private record ParserRange(
      VersionRange versions,
      ArgvDialect dialect,
      String source,
      List<FlagSpec> flags,
      Map<String, Integer> quantPolicy) {
    FlagInventory inventory() {
      return FlagInventory.builder()
          .versions(versions)
          .dialect(dialect)
          .source(source)
          .addAllFlags(flags)
          .build();
    }

    boolean onlineQuant() {
      return versions.from().map(f -> f.compareTo(ONLINE_QUANT) >= 0).orElse(false);
    }
  }

  /**
   * What {@code --quant-policy} code {@code code} stores in releases with ({@code online}) or
   * without LMDeploy's online KV quantization (0.4.0).
   */
  static KvFormat format(int code, boolean online) {
    if (!online) {
      // v0.3.0 llama_utils.h: kCacheKVInt8 = 0x04; LlamaBatch.cc: elem_bits = (quant_policy &
      // kCacheKVInt8) ? 8 : 16 — any code with bit 4 set is the offline-calibrated int8 cache.
      return (code & 4) != 0 ? KvFormat.INT8_CALIBRATED : KvFormat.MODEL_DEPENDENT;
    }
    return switch (code) {
      case 0 -> KvFormat.MODEL_DEPENDENT;
      // v0.4.0 docs/en/quantization/kv_quant.md ("online ... asymmetric quantization, per-head
      // per-token"); quantization.h keeps a scale and a zero point beside each token and head
      case 4 -> KvFormat.INT4_ASYM_PER_TOKEN_HEAD;
      case 8 -> KvFormat.INT8_ASYM_PER_TOKEN_HEAD;
      // v0.14.0 lmdeploy/messages.py QuantPolicy FP8 = 16, FP8_E5M2 = 17; v0.16.0
      // pytorch/engine/cache_engine.py stores float8_e4m3fn / float8_e5m2 with one fixed scale
      case 16 -> KvFormat.FLOAT8_E4M3FN;
      case 17 -> KvFormat.FLOAT8_E5M2;
      // v0.13.0 messages.py TURBO_QUANT = 42; v0.16.0 docs/en/quantization/kv_quant.md
      case 42 -> KvFormat.TURBOQUANT_K4V2_QJL;
      default ->
          throw new IllegalStateException(
              FLAGS
                  + " lists --quant-policy code "
                  + code
                  + ", which LmdeployEngine.format does not map: read what it stores in that"
                  + " release and add it");
    };
  }

  @Override
  public String id() {
    return "LMDeploy";
  }

  @Override
  public String displayName() {
    return "LMDeploy (lmdeploy serve api_server)";
  }

  @Override
  public String artifact() {
    return "com.example.kvcache:kvcache-engine-lmdeploy";
  }

  @Override
  public String dtypeFlag() {
    return QUANT_POLICY;
  }

  @Override
  public SpellingTable dtypeSpellings() {
    return SPELLINGS;
  }

  /** Plain argparse; ranges from 0.9.2 carry LMDeploy's FlexibleArgumentParser in the TSV. */
  @Override
  public ArgvDialect dialect() {
    return ArgvDialect.argparse();
  }

  @Override
  public List<FlagInventory> flagInventories() {
    return INVENTORIES;
  }

  @Override
  public List<String> baseArgv(String model) {
    return List.of("lmdeploy", "serve", "api_server", model);
  }

  @Override
  public int defaultPort() {
    return 23333;
  }

  @Override
  public List<String> listenFlags() {
    return List.of("--server-name", "--server-port");
  }

  @Override
  public CacheAttachment attachment(AttachmentRequest request) {
    return CacheAttachment.builder().build();
  }

  @Override
  public Set<String> ownedFlags() {
    return Set.of();
  }

  @Override
  public Set<String> ownedEnv() {
    return Set.of();
  }

  /** {@code lmdeploy chat} or {@code lmdeploy serve gradio} never read this server's flags. */
  @Override
  public Set<String> launchPrograms() {
    return Set.of("lmdeploy serve api_server", "python -m lmdeploy serve api_server");
  }

  /** One spelling table entry per run of ranges accepting the same values with the same meaning. */
  private static SpellingTable spellings(List<ParserRange> ranges) {
    SpellingTable.Builder table = SpellingTable.builder();
    int start = 0;
    for (int i = 1; i <= ranges.size(); i++) {
      ParserRange first = ranges.get(start);
      if (i < ranges.size()
          && ranges.get(i).quantPolicy().equals(first.quantPolicy())
          && ranges.get(i).onlineQuant() == first.onlineQuant()) {
        continue;
      }
      ParserRange last = ranges.get(i - 1);
      Map<String, KvFormat> formats = new TreeMap<>();
      first.quantPolicy().forEach((value, code) -> formats.put(value, format(code, first.onlineQuant())));
      table.addEntries(
          DtypeSpellings.builder()
              .versions(
                  VersionRange.builder()
                      .from(first.versions().from())
                      .until(last.versions().until())
                      .build())
              .source(
                  "--quant-policy values the api_server parser accepts, run per release by"
                      + " tools/extract_flags.py ("
                      + FLAGS
                      + "), from "
                      + first.source()
                      + (first.onlineQuant()
                          ? "; formats: docs/en/quantization/kv_quant.md and lmdeploy/messages.py"
                              + " QuantPolicy of the release"
                          : "; formats: src/turbomind/models/llama/llama_utils.h kCacheKVInt8 ="
                              + " 0x04 (any integer parses; bit 4 selects int8), read at the v0.3.0"
                              + " tag: the wheels hold the compiled kernels only"))
              .addAllSpellings(formats.keySet())
              .putAllFormats(formats)
              .build());
      start = i;
    }
    return table.build();
  }

  private static List<ParserRange> read() {
    try (InputStream in = LmdeployEngine.class.getResourceAsStream(FLAGS)) {
      if (in == null) {
        throw new IllegalStateException(FLAGS + " is missing next to " + LmdeployEngine.class);
      }
      BufferedReader lines =
          new BufferedReader(new InputStreamReader(in, StandardCharsets.UTF_8));
      List<ParserRange> ranges = new ArrayList<>();
      String[] range = null;
      List<FlagSpec> flags = new ArrayList<>();
      Map<String, Integer> quantPolicy = new LinkedHashMap<>();
      for (String line = lines.readLine(); line != null; line = lines.readLine()) {
        if (line.isBlank() || line.startsWith("#")) {
          continue;
        }
        String[] f = line.split("\t", -1);
        switch (f[0]) {
          case "range" -> {
            if (range != null) {
              ranges.add(range(range, flags, quantPolicy));
            }
            range = f;
            flags = new ArrayList<>();
            quantPolicy = new LinkedHashMap<>();
          }
          case "flag" -> flags.add(FlagSpec.of(f[1], FlagArity.valueOf(f[2])));
          case "quant-policy" -> quantPolicy.put(f[1], Integer.valueOf(f[2]));
          default -> throw new IllegalStateException(FLAGS + ": unknown record " + line);
        }
      }
      if (range != null) {
        ranges.add(range(range, flags, quantPolicy));
      }
      return List.copyOf(ranges);
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  private static ParserRange range(
      String[] range, List<FlagSpec> flags, Map<String, Integer> quantPolicy) {
    ArgvDialect dialect =
        switch (range[3]) {
          case "argparse" -> ArgvDialect.argparse();
          case "flexible" -> FLEXIBLE;
          default -> throw new IllegalStateException(FLAGS + ": unknown dialect " + range[3]);
        };
    return new ParserRange(
        VersionRange.of(range[1], range[2].isEmpty() ? null : range[2]),
        dialect,
        range[4],
        List.copyOf(flags),
        Map.copyOf(quantPolicy));
  }
}
