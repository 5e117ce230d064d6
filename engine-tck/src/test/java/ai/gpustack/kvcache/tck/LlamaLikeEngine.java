package ai.gpustack.kvcache.tck;

import ai.gpustack.kvcache.api.KvFormat;
import ai.gpustack.kvcache.spi.ArgGroup;
import ai.gpustack.kvcache.spi.ArgvDialect;
import ai.gpustack.kvcache.spi.AttachmentRequest;
import ai.gpustack.kvcache.spi.CacheAttachment;
import ai.gpustack.kvcache.spi.DtypeReport;
import ai.gpustack.kvcache.spi.DtypeSpellings;
import ai.gpustack.kvcache.spi.Engine;
import ai.gpustack.kvcache.spi.EngineVersion;
import ai.gpustack.kvcache.spi.FlagInventory;
import ai.gpustack.kvcache.spi.FlagSpec;
import ai.gpustack.kvcache.spi.InventoryRanges;
import ai.gpustack.kvcache.spi.SpellingTable;
import ai.gpustack.kvcache.spi.VersionRange;
import ai.gpustack.kvcache.spi.VersionScheme;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * An engine that is not argparse, shaped like llama.cpp's {@code llama-server}: build numbers,
 * short aliases ({@code -ctk}, {@code -ctv}), no {@code --flag=value} and no abbreviations, a GGML
 * format of its own, {@code bfloat16} handed over as {@code bf16}, a flag defaulted from a build
 * on, and a report read off a captured answer. Declared truthfully, it passes the kit; the
 * planted-mistake tests change one declaration each.
 */
public class LlamaLikeEngine implements Engine {
  static final String KEYS = "--cache-type-k";
  static final String VALUES = "--cache-type-v";
  static final KvFormat Q8_0 = KvFormat.engineDefined("llama-like", "q8_0", "GGML q8_0 blocks");
  static final String UNIFIED_FROM = "b4500";

  @Override
  public String id() {
    return "llama-like";
  }

  @Override
  public String artifact() {
    return "ai.gpustack.kvcache:kvcache-engine-tck";
  }

  @Override
  public VersionScheme versionScheme() {
    return VersionScheme.BUILD_NUMBER;
  }

  @Override
  public String dtypeFlag() {
    return KEYS;
  }

  @Override
  public List<String> dtypeFlags() {
    return List.of(KEYS, VALUES);
  }

  @Override
  public SpellingTable dtypeSpellings() {
    return SpellingTable.builder()
        .addEntries(
            DtypeSpellings.of(
                "b4000", "b4500", "test b4000", Map.of("f16", KvFormat.FLOAT16, "q8_0", Q8_0)),
            DtypeSpellings.of(
                    "b4500",
                    null,
                    "test b4500",
                    Map.of("f16", KvFormat.FLOAT16, "bfloat16", KvFormat.BFLOAT16, "q8_0", Q8_0))
                .withEngineValues(Map.of("bfloat16", "bf16")))
        .build();
  }

  @Override
  public ArgvDialect dialect() {
    return ArgvDialect.builder()
        .parser("llama.cpp common/arg.cpp")
        .inlineValues(false)
        .underscoresAsDashes(false)
        .dottedMembers(false)
        .abbreviations(false)
        .doubleDashEndsOptions(false)
        .build();
  }

  @Override
  public List<FlagInventory> flagInventories() {
    return new InventoryRanges()
        .from(
            "b4000",
            dialect(),
            "test b4000",
            FlagSpec.value(KEYS).withAliases("-ctk"),
            FlagSpec.value(VALUES).withAliases("-ctv"),
            FlagSpec.value("--host"),
            FlagSpec.value("--port"),
            FlagSpec.value("--kv-store"))
        .from(UNIFIED_FROM, dialect(), "test b4500", FlagSpec.toggle("--kv-unified"))
        .build();
  }

  @Override
  public List<String> baseArgv(String model) {
    return List.of("llama-server", "-m", model);
  }

  @Override
  public int defaultPort() {
    return 8080;
  }

  @Override
  public CacheAttachment attachment(AttachmentRequest request) {
    CacheAttachment.Builder attachment =
        CacheAttachment.builder().addConnectorArgs("--kv-store", request.clientEndpoint());
    if (request.engineVersion().map(v -> from(v, unifiedFrom())).orElse(true)) {
      attachment.addDefaultedArgs(ArgGroup.toggle("--kv-unified"));
    }
    return attachment.build();
  }

  /** The build the module renders {@code --kv-unified} from. */
  String unifiedFrom() {
    return UNIFIED_FROM;
  }

  static boolean from(String version, String first) {
    return EngineVersion.parse(version).compareTo(EngineVersion.parse(first)) >= 0;
  }

  @Override
  public Set<String> ownedFlags() {
    return Set.of("--kv-store");
  }

  @Override
  public Set<String> ownedEnv() {
    return Set.of();
  }

  @Override
  public Set<String> launchPrograms() {
    return Set.of("llama-server");
  }

  @Override
  public List<DtypeReport> dtypeReports() {
    return List.of(new PropsReport());
  }

  /** {@code GET /props} answering one {@code key: value} line per setting. */
  static class PropsReport implements DtypeReport {
    private static final Pattern LINE = Pattern.compile("(?m)^cache_type_k: ([a-z0-9_]{1,40})$");

    @Override
    public VersionRange versions() {
      return VersionRange.of(UNIFIED_FROM, null);
    }

    @Override
    public String source() {
      return "test b4500: /props";
    }

    @Override
    public String path() {
      return "/props";
    }

    @Override
    public Optional<String> read(String body) {
      if (body.length() > 1 << 20) {
        return Optional.empty();
      }
      Matcher m = LINE.matcher(body);
      return m.find() ? Optional.of(m.group(1)) : Optional.empty();
    }

    @Override
    public String sample(String value) {
      return "build_info: b4500\ncache_type_k: " + value + "\ncache_type_v: " + value + "\n";
    }

    @Override
    public List<ReportFixture> fixtures() {
      return List.of(
          new ReportFixture(
              "reports/props-b4589.txt", Optional.of("bf16"), "a test capture at b4589"));
    }
  }
}
