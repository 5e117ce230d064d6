package ai.gpustack.kvcache.engine.sglang;

import static ai.gpustack.kvcache.api.KvFormat.*;

import ai.gpustack.kvcache.api.EnvVar;
import ai.gpustack.kvcache.api.KvFormat;
import ai.gpustack.kvcache.spi.ArgGroup;
import ai.gpustack.kvcache.spi.ArgvDialect;
import ai.gpustack.kvcache.spi.AttachmentRequest;
import ai.gpustack.kvcache.spi.CacheAttachment;
import ai.gpustack.kvcache.spi.DtypeReport;
import ai.gpustack.kvcache.spi.DtypeSpellings;
import ai.gpustack.kvcache.spi.Engine;
import ai.gpustack.kvcache.spi.FlagInventory;
import ai.gpustack.kvcache.spi.FlagSpec;
import ai.gpustack.kvcache.spi.PlatformFormats;
import ai.gpustack.kvcache.spi.SpellingTable;
import ai.gpustack.kvcache.spi.VersionRange;
import com.google.auto.service.AutoService;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.TreeMap;
import java.util.stream.Stream;

/**
 * SGLang ({@code python3 -m sglang.launch_server}). Its launcher is plain argparse: prefix
 * abbreviation, {@code --flag=value}, and no underscore spellings. The cache attaches through
 * HiCache's Mooncake storage backend, configured by {@code MOONCAKE_*} environment variables.
 */
@AutoService(Engine.class)
public final class SglangEngine implements Engine {
  static final String STORAGE_BACKEND = "--hicache-storage-backend";
  static final String STORAGE_BACKEND_EXTRA_CONFIG = "--hicache-storage-backend-extra-config";
  static final String HIERARCHICAL_CACHE = "--enable-hierarchical-cache";

  /**
   * The release tags were read from the bytedance-iaas/sglang fork, which carries upstream's tags
   * (its v0.2.14 and v0.4.1.post3 are the bump commits kazemnejad/sglang holds too).
   */
  private static final String FORK = "python/sglang/srt/server_args.py at the release tag";

  /** Before 0.5.7 the ROCm build stores both FP8 spellings in their fnuz variants. */
  private static final PlatformFormats ROCM_FNUZ =
      PlatformFormats.builder()
          .platform("ROCm")
          .putFormats("fp8_e4m3", FLOAT8_E4M3FNUZ)
          .putFormats("fp8_e5m2", FLOAT8_E5M2FNUZ)
          .source(
              "model_runner.py at v0.4.8.post1 and v0.5.6: float8_e4m3fnuz / float8_e5m2fnuz under"
                  + " is_hip (PR #7148)")
          .build();

  /** From 0.5.7 ROCm stores its platform FP8 for either spelling (PR #13147). */
  private static final List<PlatformFormats> ROCM_PLATFORM_FP8 =
      List.of(
          PlatformFormats.builder()
              .platform("ROCm gfx94x (MI300, MI325)")
              .putFormats("fp8_e4m3", FLOAT8_E4M3FNUZ)
              .putFormats("fp8_e5m2", FLOAT8_E4M3FNUZ)
              .source(
                  "model_runner.py at v0.5.7 and mem_cache/kv_cache_dtype.py at v0.5.18: fp8_dtype,"
                      + " fnuz when the arch is gfx94x")
              .build(),
          PlatformFormats.builder()
              .platform("ROCm gfx950 and newer")
              .putFormats("fp8_e5m2", FLOAT8_E4M3FN)
              .source("the same files: fp8_dtype is float8_e4m3fn off gfx94x, for fp8_e5m2 too")
              .build());

  private static final SpellingTable SPELLINGS = spellingTable();

  /** Each range accepts what the one before it did, plus what it adds, minus what it drops. */
  private static SpellingTable spellingTable() {
    Map<String, KvFormat> accepted =
        new TreeMap<>(Map.of("auto", MODEL_DEPENDENT, "fp8_e5m2", FLOAT8_E5M2));
    return SpellingTable.builder()
        .addEntries(
            range(
                accepted,
                "0.2.14",
                "0.3.6",
                FORK + ": v0.2.14 adds choices auto fp8_e5m2 (PR #1204); v0.2.13 has no flag",
                List.of()),
            range(
                accepted,
                "0.3.6",
                "0.4.1.post6",
                FORK
                    + ": unchanged; model_runner.py stores fp8_e5m2 as float8_e5m2fnuz on ROCm"
                    + " from v0.3.6",
                List.of(
                    PlatformFormats.builder()
                        .platform("ROCm")
                        .putFormats("fp8_e5m2", FLOAT8_E5M2FNUZ)
                        .source("model_runner.py at v0.3.6: float8_e5m2fnuz under is_hip")
                        .build()),
                Map.of()),
            range(
                accepted,
                "0.4.1.post6",
                "0.4.8.post1",
                FORK
                    + ": v0.4.1.post6 adds fp8_e4m3 (PR #2786; absent in v0.4.1.post5); ROCm"
                    + " assigns fp8_e4m3 no dtype until v0.4.8.post1",
                List.of(
                    PlatformFormats.builder()
                        .platform("ROCm")
                        .putFormats("fp8_e5m2", FLOAT8_E5M2FNUZ)
                        .source("model_runner.py at v0.4.1.post6: only fp8_e5m2 has a HIP dtype")
                        .build()),
                Map.of("fp8_e4m3", FLOAT8_E4M3FN)),
            range(
                accepted,
                "0.4.8.post1",
                "0.5.4",
                FORK + ": unchanged; ROCm stores fp8_e4m3 as float8_e4m3fnuz from v0.4.8.post1",
                List.of(ROCM_FNUZ),
                Map.of()),
            range(
                accepted,
                "0.5.4",
                "0.5.4.post3",
                FORK + ": v0.5.4 adds bf16 and bfloat16 (PR #11749; absent in v0.5.3.post3)",
                List.of(ROCM_FNUZ),
                Map.of("bf16", BFLOAT16, "bfloat16", BFLOAT16)),
            range(
                accepted,
                "0.5.4.post3",
                "0.5.7",
                FORK
                    + ": v0.5.4.post3 adds fp4_e2m1 (PR #10078; absent in v0.5.4.post2), stored"
                    + " as float4_e2m1fn_x2 with an E8M0 exponent per 16 (layers/quantization/"
                    + "kvfp4_tensor.py)",
                List.of(ROCM_FNUZ),
                Map.of("fp4_e2m1", FP4_E2M1_BLOCK16_E8M0)),
            range(
                accepted,
                "0.5.7",
                "0.5.16",
                FORK
                    + ": unchanged spellings; ROCm stores its platform FP8 from v0.5.7 (PR #13147)",
                ROCM_PLATFORM_FP8,
                Map.of()),
            range(
                without(accepted, "fp4_e2m1"),
                "0.5.16",
                null,
                FORK
                    + ": v0.5.16 adds mxfp8, nvfp4 and fp4_mx_block16 (PRs #21601, #31681;"
                    + " layers/quantization/fp4_kv_cache_quant_method.py); v0.5.16 to v0.5.18 still"
                    + " list fp4_e2m1 but refuse it at startup (\"deprecated. Use"
                    + " fp4_mx_block16\"), so it is not accepted here; arg_groups/fields/model.py @"
                    + " 0116c606 agrees; v0.5.19 not read",
                ROCM_PLATFORM_FP8,
                Map.of(
                    "fp4_mx_block16", FP4_E2M1_BLOCK16_E8M0,
                    "mxfp8", MXFP8,
                    "nvfp4", NVFP4)))
        .build();
  }

  private static DtypeSpellings range(
      Map<String, KvFormat> accepted,
      String from,
      String until,
      String source,
      List<PlatformFormats> platforms,
      Map<String, KvFormat> added) {
    accepted.putAll(added);
    return DtypeSpellings.builder()
        .versions(VersionRange.of(from, until))
        .source(source)
        .addAllSpellings(accepted.keySet())
        .putAllFormats(accepted)
        .addAllPlatforms(platforms)
        .build();
  }

  private static DtypeSpellings range(
      Map<String, KvFormat> accepted,
      String from,
      String until,
      String source,
      List<PlatformFormats> platforms) {
    return range(accepted, from, until, source, platforms, Map.of());
  }

  private static Map<String, KvFormat> without(Map<String, KvFormat> accepted, String dropped) {
    accepted.remove(dropped);
    return accepted;
  }

  private static final List<FlagSpec> BASE_FLAGS =
      List.of(
          FlagSpec.toggle("--help"),
          FlagSpec.value("--host"),
          FlagSpec.value("--port"),
          FlagSpec.value("--model-path"),
          FlagSpec.value("--model"),
          FlagSpec.value("--kv-cache-dtype"),
          FlagSpec.value("--hicache-ratio"),
          FlagSpec.value("--hicache-size"),
          FlagSpec.value("--hicache-write-policy"),
          FlagSpec.value("--hicache-io-backend"),
          FlagSpec.value("--hicache-mem-layout"),
          FlagSpec.value(STORAGE_BACKEND),
          FlagSpec.value("--hicache-storage-prefetch-policy"),
          FlagSpec.value(STORAGE_BACKEND_EXTRA_CONFIG),
          FlagSpec.toggle(HIERARCHICAL_CACHE),
          FlagSpec.toggle("--enable-metrics"),
          FlagSpec.value("--disaggregation-mode"),
          FlagSpec.value("--disaggregation-transfer-backend"),
          FlagSpec.value("--disaggregation-bootstrap-port"));

  private static final FlagSpec QUANTIZATION_PARAM_PATH =
      FlagSpec.value("--quantization-param-path")
          .withKvEffect("loads per-layer KV-cache scaling factors from a JSON file");
  private static final FlagSpec KV_EVENTS_CONFIG = FlagSpec.value("--kv-events-config");
  private static final FlagSpec CONFIG =
      FlagSpec.value("--config")
          .withKvEffect(
              "reads server arguments from a YAML file, which can set KV-cache options the"
                  + " webhook cannot see (the rendered --kv-cache-dtype still wins over the"
                  + " file's)");
  private static final List<FlagSpec> KV_CANARY_FLAGS =
      List.of(
          FlagSpec.value("--kv-canary"),
          FlagSpec.value("--kv-canary-real-data"),
          FlagSpec.value("--kv-canary-sweep-interval"));

  private static final List<FlagInventory> INVENTORIES =
      List.of(
          inventory(
              "0.2.14",
              "0.4.1.post6",
              FORK + " v0.2.14 to v0.4.1.post5: --kv-cache-dtype the only --kv flag",
              List.of()),
          inventory(
              "0.4.1.post6",
              "0.4.6.post5",
              FORK + ": --quantization-param-path from v0.4.1.post6, with fp8_e4m3 (PR #2786)",
              List.of(QUANTIZATION_PARAM_PATH)),
          inventory(
              "0.4.6.post5",
              "0.5.3rc2",
              FORK + ": --kv-events-config from v0.4.6.post5 makes --kv ambiguous",
              List.of(QUANTIZATION_PARAM_PATH, KV_EVENTS_CONFIG)),
          inventory(
              "0.5.3rc2",
              "0.5.13",
              FORK
                  + ": --config FILE.yaml from v0.5.3rc2 (PR #10534; server_args_config_parser.py"
                  + " puts the file's options before the command line, which wins)",
              List.of(QUANTIZATION_PARAM_PATH, KV_EVENTS_CONFIG, CONFIG)),
          inventory(
              "0.5.13",
              null,
              FORK + " v0.5.13 to v0.5.18: the --kv-canary flags make --kv-c ambiguous",
              Stream.concat(
                      Stream.of(QUANTIZATION_PARAM_PATH, KV_EVENTS_CONFIG, CONFIG),
                      KV_CANARY_FLAGS.stream())
                  .toList()));

  private static FlagInventory inventory(
      String from, String until, String source, List<FlagSpec> extra) {
    return FlagInventory.builder()
        .versions(VersionRange.of(from, until))
        .source(source)
        .addAllFlags(BASE_FLAGS)
        .addAllFlags(extra)
        .build();
  }

  private static final String SHAPE =
      "shaped after http_server.py at the tag (asdict(server_args) merged with the scheduler info;"
          + " values illustrative, not captured from a running server)";

  private static final List<DtypeReport> REPORTS =
      List.of(
          new ServerInfoReport(
              VersionRange.of("0.2.14", "0.3.6.post1"),
              "/get_server_args",
              false,
              "GET /get_server_args: python/sglang/srt/server.py at v0.2.14 to v0.3.6",
              List.of(
                  fixture("get-server-args-v0.3.0.json", "auto", "v0.3.0, " + SHAPE),
                  new DtypeReport.ReportFixture(
                      "reports/unauthorized.json",
                      Optional.empty(),
                      "an error body, as any release answers without the server info"))),
          new ServerInfoReport(
              VersionRange.of("0.3.6.post1", "0.4.6.post4"),
              "/get_server_info",
              false,
              "GET /get_server_info: python/sglang/srt/server.py and entrypoints/http_server.py"
                  + " at v0.3.6.post1 to v0.4.6.post3 (flat body)",
              List.of(
                  fixture(
                      "get-server-info-v0.4.1.post6.json", "fp8_e5m2", "v0.4.1.post6, " + SHAPE))),
          new ServerInfoReport(
              VersionRange.of("0.4.6.post4", "0.5.6"),
              "/get_server_info",
              true,
              "GET /get_server_info: entrypoints/http_server.py at v0.4.6.post4 to v0.5.5 (with"
                  + " internal_states)",
              List.of()),
          new ServerInfoReport(
              VersionRange.of("0.5.6", null),
              "/server_info",
              true,
              "GET /server_info (from v0.5.6; /get_server_info is kept as a deprecated alias):"
                  + " entrypoints/http_server.py at v0.5.6 to v0.5.18; internal_states carries the"
                  + " scheduler's resolved dtype in v0.5.9 to v0.5.17",
              List.of(
                  fixture("server-info-v0.5.18.json", "bf16", "v0.5.18, " + SHAPE),
                  fixture(
                      "server-info-v0.5.12-resolved.json",
                      "fp8_e4m3",
                      "v0.5.12 serving an FP8 checkpoint with auto, " + SHAPE),
                  new DtypeReport.ReportFixture(
                      "reports/unauthorized.json",
                      Optional.empty(),
                      "an error body, as the server answers with --api-key set and no token"))));

  private static DtypeReport.ReportFixture fixture(String resource, String reports, String source) {
    return new DtypeReport.ReportFixture("reports/" + resource, Optional.of(reports), source);
  }

  @Override
  public List<DtypeReport> dtypeReports() {
    return REPORTS;
  }

  @Override
  public String id() {
    return "SGLang";
  }

  @Override
  public String artifact() {
    return "ai.gpustack.kvcache:kvcache-engine-sglang";
  }

  @Override
  public SpellingTable dtypeSpellings() {
    return SPELLINGS;
  }

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
    return List.of("python3", "-m", "sglang.launch_server", "--model-path", model);
  }

  @Override
  public Optional<String> defaultImage(Optional<String> version) {
    return Optional.of(
        "lmsysorg/sglang:" + version.map(v -> v.startsWith("v") ? v : "v" + v).orElse("latest"));
  }

  @Override
  public int defaultPort() {
    return 30000;
  }

  @Override
  public CacheAttachment attachment(AttachmentRequest request) {
    CacheAttachment.Builder attachment =
        CacheAttachment.builder()
            .addConnectorArgs(STORAGE_BACKEND, "mooncake")
            .addDefaultedArgs(ArgGroup.toggle(HIERARCHICAL_CACHE))
            .addEnv(EnvVar.of("MOONCAKE_MASTER", request.clientEndpoint()))
            .addEnv(EnvVar.of("MOONCAKE_TE_META_DATA_SERVER", "P2PHANDSHAKE"))
            .addEnv(EnvVar.of("MOONCAKE_PROTOCOL", "tcp"))
            .addDefaultedEnv(EnvVar.of("MC_TE_METRIC", "1"));
    request.tenant().ifPresent(t -> attachment.addEnv(EnvVar.of("MOONCAKE_TENANT_ID", t)));
    return attachment.build();
  }

  @Override
  public Set<String> ownedFlags() {
    return Set.of(STORAGE_BACKEND, STORAGE_BACKEND_EXTRA_CONFIG);
  }

  @Override
  public Set<String> ownedEnv() {
    return Set.of(
        "SGLANG_HICACHE_MOONCAKE_CONFIG_PATH",
        "MOONCAKE_MASTER",
        "MOONCAKE_TE_META_DATA_SERVER",
        "MOONCAKE_PROTOCOL",
        "MOONCAKE_DEVICE",
        "MOONCAKE_GLOBAL_SEGMENT_SIZE",
        "MOONCAKE_LOCAL_HOSTNAME",
        "MOONCAKE_TENANT_ID");
  }

  @Override
  public Set<String> launchPrograms() {
    return Set.of("python -m sglang.launch_server", "sglang serve");
  }
}
