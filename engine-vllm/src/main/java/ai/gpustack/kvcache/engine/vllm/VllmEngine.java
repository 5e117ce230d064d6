package ai.gpustack.kvcache.engine.vllm;

import ai.gpustack.kvcache.api.EnvVar;
import ai.gpustack.kvcache.api.RoleKind;
import ai.gpustack.kvcache.spi.ArgvDialect;
import ai.gpustack.kvcache.spi.AttachmentRequest;
import ai.gpustack.kvcache.spi.CacheAttachment;
import ai.gpustack.kvcache.spi.ClientConfigFile;
import ai.gpustack.kvcache.spi.DtypeSpellings;
import ai.gpustack.kvcache.spi.Engine;
import ai.gpustack.kvcache.spi.FlagInventory;
import ai.gpustack.kvcache.spi.FlagSpec;
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

  private static final String CACHE_PY = "vllm-project/vllm vllm/config/cache.py";

  private static final SpellingTable SPELLINGS =
      SpellingTable.builder()
          .addEntries(
              DtypeSpellings.of(
                  "0.3.0",
                  "0.4.2",
                  "vllm-project/vllm PR #2279 \"Support FP8-E5M2 KV Cache\" (merged Jan 2024,"
                      + " released in v0.3.x; the end of the range is the v0.4.2 docs)",
                  "auto",
                  "fp8_e5m2"),
              DtypeSpellings.of(
                  "0.4.2",
                  "0.5.3",
                  "docs.vllm.ai/en/v0.4.2/models/engine_args.html",
                  "auto",
                  "fp8"),
              DtypeSpellings.of(
                  "0.5.3",
                  "0.10.0",
                  "docs.vllm.ai/en/v0.5.3/models/engine_args.html; CacheDType in"
                      + " docs.vllm.ai/en/v0.9.0 and v0.9.2 /api/vllm/config.html",
                  "auto",
                  "fp8",
                  "fp8_e4m3",
                  "fp8_e5m2"),
              DtypeSpellings.of(
                  "0.10.0",
                  "0.11.0",
                  "CacheDType in docs.vllm.ai/en/v0.10.0/api/vllm/config.html and"
                      + " v0.10.2/api/vllm/config/cache.html",
                  "auto",
                  "fp8",
                  "fp8_e4m3",
                  "fp8_e5m2",
                  "fp8_inc"),
              DtypeSpellings.of(
                  "0.11.0",
                  "0.18.0",
                  "CacheDType in docs.vllm.ai/en/v0.11.1 and v0.16.0 /api/vllm/config/cache/;"
                      + " vllm-project/vllm-ascend issue #7685 prints it for vLLM 0.17.0; bfloat16"
                      + " and fp8_ds_mla came with PR #25988 (v0.11.0 itself not verified)",
                  "auto",
                  "bfloat16",
                  "fp8",
                  "fp8_ds_mla",
                  "fp8_e4m3",
                  "fp8_e5m2",
                  "fp8_inc"),
              DtypeSpellings.of(
                  "0.18.0",
                  "0.21.0",
                  "vllm-project/vllm PR #37199 \"Add float16 to CacheDType\" (merged 2026-03-16,"
                      + " after 0.17; first release not verified)",
                  "auto",
                  "bfloat16",
                  "float16",
                  "fp8",
                  "fp8_ds_mla",
                  "fp8_e4m3",
                  "fp8_e5m2",
                  "fp8_inc"),
              DtypeSpellings.of(
                  "0.21.0",
                  "0.25.0",
                  "vllm serve usage line quoted in lemonade-sdk/lemonade issue #1912 (2026-05-16);"
                      + " nvfp4 from PR #40177 (v0.21.0), turboquant_* from PR #38479",
                  "auto",
                  "bfloat16",
                  "float16",
                  "fp8",
                  "fp8_ds_mla",
                  "fp8_e4m3",
                  "fp8_e5m2",
                  "fp8_inc",
                  "fp8_per_token_head",
                  "int8_per_token_head",
                  "nvfp4",
                  "turboquant_3bit_nc",
                  "turboquant_4bit_nc",
                  "turboquant_k3v4_nc",
                  "turboquant_k8v4"),
              DtypeSpellings.of(
                  "0.25.0",
                  "0.29.0",
                  "int4_per_token_head added before v0.25.1 (16 entries at v0.25.1 per a"
                      + " third-party note; release not verified)",
                  "auto",
                  "bfloat16",
                  "float16",
                  "fp8",
                  "fp8_ds_mla",
                  "fp8_e4m3",
                  "fp8_e5m2",
                  "fp8_inc",
                  "fp8_per_token_head",
                  "int4_per_token_head",
                  "int8_per_token_head",
                  "nvfp4",
                  "turboquant_3bit_nc",
                  "turboquant_4bit_nc",
                  "turboquant_k3v4_nc",
                  "turboquant_k8v4"),
              DtypeSpellings.of(
                  "0.29.0",
                  null,
                  CACHE_PY + " CacheDType @ 002f10e0cfa1373a19a0d2756598a34b700d20e5 (v0.29.0)",
                  "auto",
                  "bfloat16",
                  "float16",
                  "fp8",
                  "fp8_ds_mla",
                  "fp8_e4m3",
                  "fp8_e5m2",
                  "fp8_inc",
                  "fp8_per_token_head",
                  "int4_per_token_head",
                  "int8_per_token_head",
                  "nvfp4",
                  "nvfp4_4over6",
                  "nvfp4_ds_mla",
                  "turboquant_3bit_nc",
                  "turboquant_4bit_nc",
                  "turboquant_k3v4_nc",
                  "turboquant_k8v4"))
          .build();

  /** Every flag sharing a prefix with --kv-cache-dtype, --kv-transfer-config, --host or --port. */
  private static final List<FlagSpec> COMMON_FLAGS =
      List.of(
          FlagSpec.toggle("--help"),
          FlagSpec.toggle("--headless"),
          FlagSpec.value("--host"),
          FlagSpec.value("--hf-config-path"),
          FlagSpec.value("--hf-token"),
          FlagSpec.value("--hf-overrides"),
          FlagSpec.value("--port"),
          FlagSpec.value("--pipeline-parallel-size"),
          FlagSpec.value("--pooler-config"),
          FlagSpec.value("--prefix-caching-hash-algo"),
          FlagSpec.value("--pt-load-map-location"),
          FlagSpec.value("--kv-cache-dtype"),
          FlagSpec.value("--kv-transfer-config"),
          FlagSpec.value("--kv-events-config"));

  private static final List<FlagInventory> INVENTORIES =
      List.of(
          inventory(
              "0.3.0",
              "0.11.0",
              "vllm-project/vllm vllm/engine/arg_utils.py and vllm/entrypoints/openai/cli_args.py"
                  + " before v0.11: --kv-cache-dtype is the only --kv-cache flag",
              List.of()),
          inventory(
              "0.11.0",
              "0.20.0",
              "vllm-project/vllm vllm/engine/arg_utils.py (v0.11-era revisions):"
                  + " --kv-cache-memory-bytes makes --kv-cache ambiguous",
              List.of(
                  FlagSpec.value("--kv-cache-memory-bytes"),
                  FlagSpec.toggle("--kv-sharing-fast-prefill"),
                  FlagSpec.value("--kv-offloading-size"),
                  FlagSpec.value("--kv-offloading-backend"))),
          inventory(
              "0.20.0",
              null,
              "vllm-project/vllm vllm/engine/arg_utils.py (2026 revisions) and vllm/config/cache.py"
                  + " @ 002f10e0: --kv-cache-dtype-skip-layers (PR #39002 era) makes --kv-cache-d"
                  + " ambiguous too",
              List.of(
                  FlagSpec.value("--kv-cache-memory-bytes"),
                  FlagSpec.list("--kv-cache-dtype-skip-layers"),
                  FlagSpec.toggle("--kv-sharing-fast-prefill"),
                  FlagSpec.value("--kv-offloading-size"),
                  FlagSpec.value("--kv-offloading-backend"),
                  FlagSpec.toggle("--kv-cache-metrics"),
                  FlagSpec.value("--kv-cache-metrics-sample"),
                  FlagSpec.value("--kernel-config"))));

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
    return Optional.of(
        "vllm/vllm-openai:" + version.map(v -> v.startsWith("v") ? v : "v" + v).orElse("latest"));
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
        "vllm",
        "python -m vllm.entrypoints.openai.api_server",
        "python -m vllm.entrypoints.cli.main");
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

  private static FlagInventory inventory(
      String from, String until, String source, List<FlagSpec> extra) {
    return FlagInventory.builder()
        .versions(VersionRange.of(from, until))
        .source(source)
        .addAllFlags(COMMON_FLAGS)
        .addAllFlags(extra)
        .build();
  }
}
