package ai.gpustack.kvcache.engine.vllm;

import ai.gpustack.kvcache.api.EnvVar;
import ai.gpustack.kvcache.api.RoleKind;
import ai.gpustack.kvcache.spi.ArgvDialect;
import ai.gpustack.kvcache.spi.AttachmentRequest;
import ai.gpustack.kvcache.spi.CacheAttachment;
import ai.gpustack.kvcache.spi.ClientConfigFile;
import ai.gpustack.kvcache.spi.DtypeReport;
import ai.gpustack.kvcache.spi.Engine;
import ai.gpustack.kvcache.spi.FlagInventory;
import ai.gpustack.kvcache.spi.FlagSpec;
import ai.gpustack.kvcache.spi.InventoryRanges;
import ai.gpustack.kvcache.spi.SpellingTable;
import ai.gpustack.kvcache.spi.VersionRange;
import com.google.auto.service.AutoService;
import java.util.ArrayList;
import java.util.EnumMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;

/**
 * vLLM ({@code vllm serve}). Its parser is FlexibleArgumentParser: argparse with prefix
 * abbreviation, plus underscore spellings ({@code --kv_cache_dtype}) and dotted JSON members
 * ({@code --kv-transfer-config.kv_role}). The cache attaches through the Mooncake store connector,
 * configured by a file.
 */
@AutoService(Engine.class)
public final class VllmEngine implements Engine {
  /**
   * The newest release the tables were read from (release-facts.json): the image a role naming no
   * version runs, so what runs is what the tables describe, never a moving tag.
   */
  static final String NEWEST_READ = "0.34.0";

  static final String KV_TRANSFER_CONFIG = "--kv-transfer-config";
  static final String CONFIG_DIRECTORY = "/etc/gpustack/kvcache";
  static final String CONFIG_FILE = "mooncake.json";
  static final String MOONCAKE_CONFIG_PATH = "MOONCAKE_CONFIG_PATH";
  private static final EnvVar CONFIG_PATH_ENV =
      EnvVar.of(MOONCAKE_CONFIG_PATH, CONFIG_DIRECTORY + "/" + CONFIG_FILE);
  private static final EnvVar METRICS_ENV = EnvVar.of("MC_TE_METRIC", "1");

  /** The {@code --kv-transfer-config} value per role kind; written once, every Pod reuses it. */
  private static final Map<RoleKind, String> TRANSFER_CONFIGS = new EnumMap<>(RoleKind.class);

  static {
    for (RoleKind kind : RoleKind.values()) {
      Map<String, String> transfer = new LinkedHashMap<>();
      transfer.put("kv_connector", "MooncakeStoreConnector");
      transfer.put("kv_role", kvRole(kind));
      TRANSFER_CONFIGS.put(kind, json(transfer));
    }
  }

  private static final SpellingTable SPELLINGS = VllmSpellings.spellingTable();

  private static final FlagSpec QUANTIZATION_PARAM_PATH =
      FlagSpec.value("--quantization-param-path")
          .withKvEffect("loads per-layer KV-cache scaling factors from a JSON file");
  private static final FlagSpec CONFIG =
      FlagSpec.value("--config")
          .withKvEffect(
              "reads engine arguments from a YAML file, which can set KV-cache options the"
                  + " webhook cannot see (the rendered --kv-cache-dtype still wins over the"
                  + " file's)");
  private static final FlagSpec CALCULATE_KV_SCALES =
      FlagSpec.toggle("--calculate-kv-scales")
          .withKvEffect(
              "computes the FP8 KV scales from the first batch instead of reading the"
                  + " checkpoint's");
  private static final FlagSpec SKIP_LAYERS =
      FlagSpec.list("--kv-cache-dtype-skip-layers")
          .withKvEffect("keeps the listed layers' KV cache at the model's dtype");

  /** FlexibleArgumentParser before dotted JSON members: underscore spellings only. */
  private static final ArgvDialect UNDERSCORES =
      ArgvDialect.builder()
          .parser("vLLM FlexibleArgumentParser (Python argparse), no dotted members")
          .inlineValues(true)
          .underscoresAsDashes(true)
          .dottedMembers(false)
          .abbreviations(true)
          .doubleDashEndsOptions(true)
          .build();

  /**
   * Per range: every option sharing three or more leading characters with --kv-cache-dtype (an
   * ambiguous prefix of it is refused naming them all), and for each other flag read here one
   * option sharing its longest prefix, so each prefix resolves as that release's parser resolves it
   * (tools/engine-facts/extract.py suggest vllm). --kv-transfer-config is listed from the start
   * because the kit requires every rendered flag in every inventory; vLLM has it from 0.6.5, and no
   * cache attaches to an earlier release.
   */
  private static final List<FlagInventory> INVENTORIES =
      new InventoryRanges()
          .from(
              "0.3.0",
              ArgvDialect.argparse(),
              "vllm 0.3.0 sdist: vllm/engine/arg_utils.py:126 (--kv-cache-dtype, --kv the only"
                  + " --kv flag), plain argparse.ArgumentParser",
              FlagSpec.toggle("--help"),
              FlagSpec.value("--host"),
              FlagSpec.value("--port"),
              FlagSpec.value("--pipeline-parallel-size"),
              FlagSpec.value("--kv-cache-dtype"),
              FlagSpec.value(KV_TRANSFER_CONFIG))
          .from(
              "0.4.1",
              ArgvDialect.argparse(),
              "vllm 0.4.1 sdist: vllm/engine/arg_utils.py:184 (--quantization-param-path)",
              QUANTIZATION_PARAM_PATH,
              FlagSpec.value("--quantization"))
          .from(
              "0.5.1",
              UNDERSCORES,
              "vllm 0.5.1 sdist: vllm/utils.py:924 (FlexibleArgumentParser; underscores read as"
                  + " dashes at :937)")
          .from(
              "0.6.0",
              UNDERSCORES,
              "vllm 0.6.0 sdist: vllm/scripts.py:128 (--config FILE.yaml; the command line wins"
                  + " over the file)",
              CONFIG,
              FlagSpec.value("--code-revision"))
          .from(
              "0.6.1",
              UNDERSCORES,
              "vllm 0.6.1 sdist: vllm/engine/arg_utils.py:248 (--config-format makes --config a"
                  + " prefix of another flag)",
              FlagSpec.value("--config-format"))
          .from(
              "0.7.0",
              UNDERSCORES,
              "vllm 0.7.0 sdist: vllm/engine/arg_utils.py:952 (--calculate-kv-scales;"
                  + " --quantization-param-path gone)",
              CALCULATE_KV_SCALES)
          .removing("--quantization-param-path", "--quantization")
          .from(
              "0.9.0",
              ArgvDialect.vllmFlexibleArgparse(),
              "vllm 0.9.0 sdist: vllm/utils.py:1452 (dotted members: --flag.member value is folded"
                  + " into --flag's JSON), vllm/engine/arg_utils.py:832 (--kv-events-config)",
              FlagSpec.value("--kv-events-config"))
          .from(
              "0.10.1",
              ArgvDialect.vllmFlexibleArgparse(),
              "vllm 0.10.1 sdist: vllm/engine/arg_utils.py:704 (--kv-sharing-fast-prefill)",
              FlagSpec.toggle("--kv-sharing-fast-prefill"))
          .from(
              "0.10.2",
              ArgvDialect.vllmFlexibleArgparse(),
              "vllm 0.10.2 sdist: vllm/engine/arg_utils.py:744 (--kv-cache-memory-bytes makes"
                  + " --kv-cache ambiguous)",
              FlagSpec.value("--kv-cache-memory-bytes"))
          .from(
              "0.11.0",
              ArgvDialect.vllmFlexibleArgparse(),
              "vllm 0.11.0 sdist: vllm/engine/arg_utils.py:578 (--pooler-config makes --po"
                  + " ambiguous)",
              FlagSpec.value("--pooler-config"))
          .from(
              "0.11.1",
              ArgvDialect.vllmFlexibleArgparse(),
              "vllm 0.11.1 sdist: vllm/engine/arg_utils.py:935 (--kv-offloading-size and"
                  + " -backend)",
              FlagSpec.value("--kv-offloading-size"),
              FlagSpec.value("--kv-offloading-backend"))
          .from(
              "0.12.0",
              ArgvDialect.vllmFlexibleArgparse(),
              "vllm 0.12.0 sdist: vllm/engine/arg_utils.py:1016 (--kv-cache-metrics and"
                  + " -sample)",
              FlagSpec.toggle("--kv-cache-metrics"),
              FlagSpec.value("--kv-cache-metrics-sample"))
          .from(
              "0.16.0",
              ArgvDialect.vllmFlexibleArgparse(),
              "vllm 0.16.0 sdist: vllm/engine/arg_utils.py:1210 (--kernel-config)",
              FlagSpec.value("--kernel-config"))
          .from(
              "0.19.0",
              ArgvDialect.vllmFlexibleArgparse(),
              "vllm 0.19.0 sdist: vllm/engine/arg_utils.py:1009 (--kv-cache-dtype-skip-layers"
                  + " makes --kv-cache-d ambiguous)",
              SKIP_LAYERS)
          .from(
              "0.27.0",
              ArgvDialect.vllmFlexibleArgparse(),
              "vllm 0.27.0 sdist: vllm/engine/arg_utils.py:1656 (--kda-prefill-backend)",
              FlagSpec.value("--kda-prefill-backend"))
          .from(
              "0.28.0",
              ArgvDialect.vllmFlexibleArgparse(),
              "vllm 0.28.0 sdist: vllm/engine/arg_utils.py (--calculate-kv-scales gone: scales"
                  + " come from the checkpoint, else 1.0)")
          .removing("--calculate-kv-scales")
          .from(
              "0.30.0",
              ArgvDialect.vllmFlexibleArgparse(),
              "vllm 0.30.0 sdist: vllm/engine/arg_utils.py:1790 (--kda-decode-backend); the same"
                  + " through 0.34.0",
              FlagSpec.value("--kda-decode-backend"))
          .build();

  private static final List<DtypeReport> REPORTS =
      List.of(
          new CacheConfigMetricReport(
              VersionRange.of("0.3.3", "0.14.0"),
              false,
              "vllm 0.3.3 sdist: vllm/engine/metrics.py:27 (an Info named vllm:cache_config,"
                  + " exposed as vllm:cache_config_info, labels from CacheConfig at"
                  + " vllm/config.py:319); from 0.5.5 a gauge named vllm:cache_config_info"
                  + " (vllm/engine/metrics.py:551), and in the V1 engine from 0.8.0"
                  + " (vllm/v1/metrics/loggers.py:309); cache_dtype holds --kv-cache-dtype as given;"
                  + " served on the API port",
              List.of(
                  CacheConfigMetricReport.fixture(
                      "metrics-v0.3.3.txt",
                      "auto",
                      "PR #3100's curl of /metrics (v0.3.3 era); HELP and TYPE lines as"
                          + " prometheus_client writes that Info"),
                  CacheConfigMetricReport.fixture(
                      "metrics-v0.5.5-era.txt",
                      "fp8_e5m2",
                      "a V0 engine of the 0.5.5 to 0.6 era (field set of that era), captured in a"
                          + " third-party test fixture"),
                  new DtypeReport.ReportFixture(
                      "reports/metrics-without-cache-config.txt",
                      Optional.empty(),
                      "a /metrics answer without the info gauge (as before v0.3.3)"))),
          new CacheConfigMetricReport(
              VersionRange.of("0.14.0", null),
              true,
              "vllm 0.14.0 sdist: vllm/v1/metrics/loggers.py:1008 (vllm:cache_config_info);"
                  + " vllm/engine/arg_utils.py:1398 resolves auto through"
                  + " resolve_kv_cache_dtype_string (vllm/utils/torch_utils.py:301) before"
                  + " CacheConfig is built, so a replica given auto reports the checkpoint's KV"
                  + " quantization (fp8) where it has one, else auto; the same through 0.34.0"
                  + " (loggers.py:1120, arg_utils.py:2330)",
              List.of(
                  CacheConfigMetricReport.fixture(
                      "metrics-2026-v1.txt",
                      "auto",
                      "curl of /metrics from a 2026 V1 build (post PR #42206 labels), an NVIDIA"
                          + " NIM container transcript"),
                  CacheConfigMetricReport.fixture(
                      "metrics-v0.30.0.txt",
                      "auto",
                      "vLLM 0.30.0 (OpenVINO build, trimmed of unrelated labels), a third-party"
                          + " test"),
                  new DtypeReport.ReportFixture(
                      "reports/metrics-without-cache-config.txt",
                      Optional.empty(),
                      "a /metrics answer without the info gauge"))));

  @Override
  public List<DtypeReport> dtypeReports() {
    return REPORTS;
  }

  @Override
  public String id() {
    return "vLLM";
  }

  @Override
  public String artifact() {
    return "ai.gpustack.kvcache:kvcache-engine-vllm";
  }

  @Override
  public SpellingTable dtypeSpellings() {
    return SPELLINGS;
  }

  @Override
  public ArgvDialect dialect() {
    return ArgvDialect.vllmFlexibleArgparse();
  }

  @Override
  public List<FlagInventory> flagInventories() {
    return INVENTORIES;
  }

  @Override
  public List<String> baseArgv(String model) {
    return List.of("vllm", "serve", model);
  }

  @Override
  public Optional<String> defaultImage(Optional<String> version) {
    String v = version.orElse(NEWEST_READ);
    return Optional.of("vllm/vllm-openai:" + (v.startsWith("v") ? v : "v" + v));
  }

  @Override
  public int defaultPort() {
    return 8000;
  }

  @Override
  public CacheAttachment attachment(AttachmentRequest request) {
    Map<String, String> client = new LinkedHashMap<>();
    client.put("master_server_address", request.clientEndpoint());
    client.put("metadata_server", "P2PHANDSHAKE");
    client.put("protocol", "tcp");
    request.tenant().ifPresent(t -> client.put("tenant_id", t));
    return CacheAttachment.builder()
        .addConnectorArgs(KV_TRANSFER_CONFIG, TRANSFER_CONFIGS.get(request.roleKind()))
        .addEnv(CONFIG_PATH_ENV)
        .addDefaultedEnv(METRICS_ENV)
        .clientConfig(
            ClientConfigFile.builder()
                .directory(CONFIG_DIRECTORY)
                .fileName(CONFIG_FILE)
                .content(json(client))
                .build())
        .build();
  }

  @Override
  public Set<String> ownedFlags() {
    return Set.of(KV_TRANSFER_CONFIG);
  }

  @Override
  public Set<String> ownedEnv() {
    return Set.of(MOONCAKE_CONFIG_PATH);
  }

  @Override
  public Set<String> launchPrograms() {
    return Set.of(
        "vllm serve",
        "python -m vllm.entrypoints.openai.api_server",
        "python -m vllm.entrypoints.cli.main serve");
  }

  private static String kvRole(RoleKind kind) {
    return switch (kind) {
      case Prefill -> "kv_producer";
      case Decode -> "kv_consumer";
      case Server -> "kv_both";
    };
  }

  /** A flat JSON object of strings, in insertion order. */
  private static String json(Map<String, String> fields) {
    List<String> members = new ArrayList<>();
    fields.forEach((k, v) -> members.add(quote(k) + ":" + quote(v)));
    return "{" + String.join(",", members) + "}";
  }

  private static String quote(String s) {
    return "\"" + s.replace("\\", "\\\\").replace("\"", "\\\"") + "\"";
  }
}
