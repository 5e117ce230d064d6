package ai.gpustack.kvcache.engine.vllm;

import static ai.gpustack.kvcache.api.KvFormat.*;

import ai.gpustack.kvcache.api.EnvVar;
import ai.gpustack.kvcache.api.KvFormat;
import ai.gpustack.kvcache.api.RoleKind;
import ai.gpustack.kvcache.spi.ArgvDialect;
import ai.gpustack.kvcache.spi.AttachmentRequest;
import ai.gpustack.kvcache.spi.CacheAttachment;
import ai.gpustack.kvcache.spi.ClientConfigFile;
import ai.gpustack.kvcache.spi.DtypeReport;
import ai.gpustack.kvcache.spi.DtypeSpellings;
import ai.gpustack.kvcache.spi.Engine;
import ai.gpustack.kvcache.spi.FlagInventory;
import ai.gpustack.kvcache.spi.FlagSpec;
import ai.gpustack.kvcache.spi.PlatformFormats;
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
import java.util.TreeMap;

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

  /** fp8 and fp8_e4m3 on MI300-class GPUs: the hardware's FP8 is fnuz. */
  private static final PlatformFormats ROCM_GFX94X =
      PlatformFormats.builder()
          .platform("ROCm gfx94x (MI300, MI308, MI325)")
          .putFormats("fp8", FLOAT8_E4M3FNUZ)
          .putFormats("fp8_e4m3", FLOAT8_E4M3FNUZ)
          .source(
              "vllm-project/vllm vllm/platforms/rocm.py @ 001eda31 (fp8_dtype(): float8_e4m3fnuz"
                  + " when the arch is gfx94x; gfx950 and gfx12 store float8_e4m3fn); the first"
                  + " release storing fnuz is not pinned")
          .build();

  private static final SpellingTable SPELLINGS = spellingTable();

  /** Since 0.5.0 every range accepts what the one before it did, and adds to it. */
  private static SpellingTable spellingTable() {
    Map<String, KvFormat> accepted =
        new TreeMap<>(
            Map.of(
                "auto", MODEL_DEPENDENT,
                "fp8", FLOAT8_E4M3FN,
                "fp8_e4m3", FLOAT8_E4M3FN,
                "fp8_e5m2", FLOAT8_E5M2));
    return SpellingTable.builder()
        .addEntries(
            DtypeSpellings.of(
                "0.3.0",
                "0.4.1",
                "vllm-project/vllm PR #2279 \"Support FP8-E5M2 KV Cache\" adds choices auto"
                    + " fp8_e5m2 (reviewed 2024-01-27); first release v0.3.0 inferred from that"
                    + " date, no release file read",
                Map.of("auto", MODEL_DEPENDENT, "fp8_e5m2", FLOAT8_E5M2)),
            DtypeSpellings.builder()
                .versions(VersionRange.of("0.4.1", "0.5.0"))
                .source(
                    "docs.vllm.ai/en/v0.4.2/models/engine_args.html: --kv-cache-dtype"
                        + " {auto,fp8}, help \"FP8_E5M2 (without scaling) ... On ROCm (AMD GPU),"
                        + " FP8_E4M3 is instead supported\"; PR #3290 renamed fp8_e5m2 to fp8"
                        + " after v0.4.0, so from v0.4.1 (not read); v0.4.3 not read either")
                .putFormats("auto", MODEL_DEPENDENT)
                .putFormats("fp8", FLOAT8_E5M2)
                .addSpellings("auto", "fp8")
                .addPlatforms(
                    PlatformFormats.builder()
                        .platform("ROCm")
                        .putFormats("fp8", FLOAT8_E4M3FNUZ)
                        .source(
                            "PR #3290 \"Enable scaled FP8 (e4m3fn) KV cache on ROCm\"; MI300's"
                                + " native FP8 is fnuz")
                        .build())
                .build(),
            spellings(
                accepted,
                "0.5.0",
                "0.10.0",
                "docs.vllm.ai/en/v0.5.0/models/engine_args.html: {auto,fp8,fp8_e5m2,fp8_e4m3},"
                    + " \"fp8 (=fp8_e4m3)\" (so do v0.5.3, v0.6.3.post1, v0.8.4 and the"
                    + " CacheDType of v0.9.0 and v0.9.2)",
                Map.of()),
            spellings(
                accepted,
                "0.10.0",
                "0.11.0",
                "CacheDType in docs.vllm.ai/en/v0.10.0/api/vllm/config.html adds fp8_inc (absent"
                    + " in v0.9.2, the release before); fp8_inc is torch.float8_e4m3fn"
                    + " (vllm/utils/torch_utils.py)",
                Map.of("fp8_inc", FLOAT8_E4M3FN)),
            spellings(
                accepted,
                "0.11.0",
                "0.18.0",
                "CacheDType in docs.vllm.ai/en/v0.11.1 and v0.16.0 /api/vllm/config/cache/ adds"
                    + " bfloat16 and fp8_ds_mla (absent in v0.10.2); v0.11.0 is the release"
                    + " that shipped DeepSeek-V3.2, which they belong to (its page not read)",
                Map.of("bfloat16", BFLOAT16, "fp8_ds_mla", FP8_DS_MLA)),
            spellings(
                accepted,
                "0.18.0",
                "0.20.0",
                "vllm-project/vllm PR #37199 \"Add float16 to CacheDType\" (approved"
                    + " 2026-03-16; absent in v0.16.0's CacheDType): first release not pinned,"
                    + " v0.18.0 or v0.19.0",
                Map.of("float16", FLOAT16)),
            spellings(
                accepted,
                "0.20.0",
                "0.21.0",
                "turboquant_*: PR #38479, shipped in v0.20.0 (a v0.20.0 server started with"
                    + " --kv-cache-dtype turboquant_4bit_nc in its thread); fp8_ and"
                    + " int8_per_token_head were on main by April 2026, release not pinned",
                Map.of(
                    "fp8_per_token_head", FLOAT8_E4M3FN_PER_TOKEN_HEAD,
                    "int8_per_token_head", INT8_PER_TOKEN_HEAD,
                    "turboquant_3bit_nc", TURBOQUANT_3BIT_NC,
                    "turboquant_4bit_nc", TURBOQUANT_4BIT_NC,
                    "turboquant_k3v4_nc", TURBOQUANT_K3V4_NC,
                    "turboquant_k8v4", TURBOQUANT_K8V4)),
            spellings(
                accepted,
                "0.21.0",
                "0.25.0",
                "nvfp4: PR #40177, \"added in v0.21.0\" per huggingface.co/nvidia/GLM-5.2-NVFP4"
                    + " discussion 1 (no release file read)",
                Map.of("nvfp4", NVFP4)),
            spellings(
                accepted,
                "0.25.0",
                "0.29.0",
                "int4_per_token_head: on main by 2026-07-16 (PR #48842 fixes it); vLLM 0.27.1"
                    + " parses it (syv-ai/qwen38-27b-rtx3090 PR #42); first release not pinned",
                Map.of("int4_per_token_head", INT4_PER_TOKEN_HEAD)),
            spellings(
                accepted,
                "0.29.0",
                null,
                CACHE_PY
                    + " CacheDType @ 002f10e0cfa1373a19a0d2756598a34b700d20e5 (its docstrings"
                    + " match docs.vllm.ai/en/v0.29.0; nvfp4_4over6 on main by 2026-08-21,"
                    + " nvfp4_ds_mla after it; releases not pinned)",
                Map.of("nvfp4_4over6", NVFP4_4OVER6, "nvfp4_ds_mla", NVFP4_DS_MLA),
                PlatformFormats.builder()
                    .platform("TPU v6e (tpu-inference plugin)")
                    .putFormats("fp8", FLOAT8_E5M2)
                    .source(
                        "vllm-project/tpu-inference platform fp8_dtype(): \"Automatically using"
                            + " fp8_e5m2 for FP8 KV cache on TPU v6e\"")
                    .build()))
        .build();
  }

  /** {@code [from, until)}: what {@code accepted} holds once {@code added} joins it. */
  private static DtypeSpellings spellings(
      Map<String, KvFormat> accepted,
      String from,
      String until,
      String source,
      Map<String, KvFormat> added,
      PlatformFormats... platforms) {
    accepted.putAll(added);
    return DtypeSpellings.builder()
        .versions(VersionRange.of(from, until))
        .source(source)
        .addAllSpellings(accepted.keySet())
        .putAllFormats(accepted)
        .addPlatforms(ROCM_GFX94X)
        .addPlatforms(platforms)
        .build();
  }

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
  private static final List<FlagSpec> KV_OFFLOAD_FLAGS =
      List.of(
          FlagSpec.value("--kv-cache-memory-bytes"),
          FlagSpec.toggle("--kv-sharing-fast-prefill"),
          FlagSpec.value("--kv-offloading-size"),
          FlagSpec.value("--kv-offloading-backend"));
  private static final List<FlagSpec> KV_METRICS_FLAGS =
      List.of(
          FlagSpec.toggle("--kv-cache-metrics"),
          FlagSpec.value("--kv-cache-metrics-sample"),
          FlagSpec.value("--kernel-config"));

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

  private static final List<FlagInventory> INVENTORIES =
      List.of(
          inventory(
              "0.3.0",
              "0.4.1",
              ArgvDialect.argparse(),
              "vllm-project/vllm vllm/engine/arg_utils.py (PR #2279 era): plain argparse,"
                  + " --kv-cache-dtype the only --kv-cache flag",
              List.of()),
          inventory(
              "0.4.1",
              "0.5.1",
              ArgvDialect.argparse(),
              "--quantization-param-path came with PR #3290 (docs.vllm.ai/en/v0.4.2"
                  + " engine_args); no FlexibleArgumentParser yet (v0.5.0.post1 lacks it, issue"
                  + " #5667)",
              List.of(QUANTIZATION_PARAM_PATH)),
          inventory(
              "0.5.1",
              "0.6.0",
              UNDERSCORES,
              "FlexibleArgumentParser: PRs #5718 and #5795 (June 2024, keys only), first release"
                  + " v0.5.1 inferred from their dates",
              List.of(QUANTIZATION_PARAM_PATH)),
          inventory(
              "0.6.0",
              "0.7.0",
              UNDERSCORES,
              "--config FILE.yaml: PR #7737, v0.6.0 (the command line wins over the file);"
                  + " --quantization-param-path through v0.6.6.post1's engine_args",
              List.of(QUANTIZATION_PARAM_PATH, CONFIG)),
          inventory(
              "0.7.0",
              "0.9.1",
              UNDERSCORES,
              "--calculate-kv-scales: PR #11906 (v0.7.0), which also removed"
                  + " --quantization-param-path",
              List.of(CONFIG, CALCULATE_KV_SCALES)),
          inventory(
              "0.9.1",
              "0.11.0",
              ArgvDialect.vllmFlexibleArgparse(),
              "dotted JSON members (--kv-transfer-config.kv_role): PR #18208 (2025-05-15), first"
                  + " release v0.9.1 inferred from its date; in the docs' JSON CLI tip by v0.12.0",
              List.of(CONFIG, CALCULATE_KV_SCALES)),
          inventory(
              "0.11.0",
              "0.17.0",
              ArgvDialect.vllmFlexibleArgparse(),
              "vllm-project/vllm vllm/engine/arg_utils.py (v0.11-era revisions):"
                  + " --kv-cache-memory-bytes makes --kv-cache ambiguous",
              concat(List.of(List.of(CONFIG, CALCULATE_KV_SCALES), KV_OFFLOAD_FLAGS))),
          inventory(
              "0.17.0",
              "0.20.0",
              ArgvDialect.vllmFlexibleArgparse(),
              "--kv-cache-dtype-skip-layers: PR #33695 (February 2026), placed at the first"
                  + " release after it (not pinned); it makes --kv-cache-d ambiguous",
              concat(List.of(List.of(CONFIG, CALCULATE_KV_SCALES, SKIP_LAYERS), KV_OFFLOAD_FLAGS))),
          inventory(
              "0.20.0",
              "0.26.0",
              ArgvDialect.vllmFlexibleArgparse(),
              "vllm-project/vllm vllm/engine/arg_utils.py (2026 revisions): --kv-cache-metrics;"
                  + " --calculate-kv-scales deprecated by PR #37201 and removed by PR #49389"
                  + " (2026-07-22; the last release with it is not pinned)",
              concat(
                  List.of(
                      List.of(CONFIG, CALCULATE_KV_SCALES, SKIP_LAYERS),
                      KV_OFFLOAD_FLAGS,
                      KV_METRICS_FLAGS))),
          inventory(
              "0.26.0",
              null,
              ArgvDialect.vllmFlexibleArgparse(),
              CACHE_PY
                  + " @ 002f10e0 and vllm/utils/argparse_utils.py @ 00da11e3: no"
                  + " --calculate-kv-scales (checkpoint scales, else 1.0)",
              concat(List.of(List.of(CONFIG, SKIP_LAYERS), KV_OFFLOAD_FLAGS, KV_METRICS_FLAGS))));

  private static List<FlagSpec> concat(List<List<FlagSpec>> lists) {
    return lists.stream().flatMap(List::stream).toList();
  }

  private static final List<DtypeReport> REPORTS = List.of(new CacheConfigMetricReport());

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

  private static FlagInventory inventory(
      String from, String until, ArgvDialect dialect, String source, List<FlagSpec> extra) {
    return FlagInventory.builder()
        .versions(VersionRange.of(from, until))
        .dialect(dialect)
        .source(source)
        .addAllFlags(COMMON_FLAGS)
        .addAllFlags(extra)
        .build();
  }
}
