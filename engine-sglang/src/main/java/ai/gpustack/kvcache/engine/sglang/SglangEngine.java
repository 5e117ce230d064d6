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
import ai.gpustack.kvcache.spi.InventoryRanges;
import ai.gpustack.kvcache.spi.PlatformFormats;
import ai.gpustack.kvcache.spi.SpellingTable;
import ai.gpustack.kvcache.spi.VersionRange;
import com.google.auto.service.AutoService;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.TreeMap;

/**
 * SGLang ({@code python3 -m sglang.launch_server}). Its launcher is plain argparse: prefix
 * abbreviation, {@code --flag=value}, and no underscore spellings. The cache attaches through
 * HiCache's Mooncake storage backend, configured by {@code MOONCAKE_*} environment variables.
 */
@AutoService(Engine.class)
public final class SglangEngine implements Engine {
  /**
   * The newest release the tables were read from (release-facts.json): the image a role naming no
   * version runs, so what runs is what the tables describe, never a moving tag.
   */
  static final String NEWEST_READ = "0.5.23";

  static final String STORAGE_BACKEND = "--hicache-storage-backend";
  static final String STORAGE_BACKEND_EXTRA_CONFIG = "--hicache-storage-backend-extra-config";
  static final String HIERARCHICAL_CACHE = "--enable-hierarchical-cache";

  private static final PlatformFormats ROCM_E5M2_FNUZ =
      PlatformFormats.builder()
          .platform("ROCm")
          .putFormats("fp8_e5m2", FLOAT8_E5M2FNUZ)
          .source(
              "sglang 0.3.6 sdist: sglang/srt/model_executor/model_runner.py:442"
                  + " (torch.float8_e5m2fnuz when is_hip(), the platform found at run time);"
                  + " fp8_e4m3 has no HIP branch before 0.4.8.post1 (0.4.1.post6:"
                  + " model_runner.py:544)")
          .build();

  /** From 0.4.8.post1 ROCm stores both FP8 spellings in their fnuz variants. */
  private static final PlatformFormats ROCM_FNUZ =
      PlatformFormats.builder()
          .platform("ROCm")
          .putFormats("fp8_e4m3", FLOAT8_E4M3FNUZ)
          .putFormats("fp8_e5m2", FLOAT8_E5M2FNUZ)
          .source(
              "sglang 0.4.8.post1 sdist: sglang/srt/model_executor/model_runner.py:863 and :868"
                  + " (torch.float8_e5m2fnuz and float8_e4m3fnuz when is_hip(), the platform found"
                  + " at run time)")
          .build();

  /** From 0.5.6.post2 ROCm stores its device's FP8 for either spelling. */
  private static final List<PlatformFormats> ROCM_PLATFORM_FP8 =
      List.of(
          PlatformFormats.builder()
              .platform("ROCm gfx94x (MI300, MI325)")
              .putFormats("fp8_e4m3", FLOAT8_E4M3FNUZ)
              .putFormats("fp8_e5m2", FLOAT8_E4M3FNUZ)
              .source(
                  "sglang 0.5.6.post2 sdist: sglang/srt/model_executor/model_runner.py:1640 and"
                      + " :1645 (fp8_dtype when is_hip()), fp8_dtype from"
                      + " sglang/srt/layers/quantization/fp8_kernel.py:78 (float8_e4m3fnuz when"
                      + " \"gfx94\" is in the device's gcnArchName, read at run time); from 0.5.16"
                      + " in sglang/srt/mem_cache/kv_cache_dtype.py:43")
              .build(),
          PlatformFormats.builder()
              .platform("ROCm gfx950 and newer")
              .putFormats("fp8_e5m2", FLOAT8_E4M3FN)
              .source(
                  "the same lines: fp8_dtype is float8_e4m3fn off gfx94x (fp8_kernel.py:89), for"
                      + " fp8_e5m2 too")
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
                "sglang 0.2.14 sdist: sglang/srt/server_args.py:204 (choices auto fp8_e5m2; 0.2.13"
                    + " has no --kv-cache-dtype); sglang/srt/model_executor/model_runner.py:339"
                    + " stores torch.float8_e5m2",
                List.of()),
            range(
                accepted,
                "0.3.6",
                "0.4.1.post6",
                "sglang 0.3.6 sdist: sglang/srt/server_args.py (the choices of 0.2.14); ROCm"
                    + " stores fp8_e5m2 as fnuz from here",
                List.of(ROCM_E5M2_FNUZ)),
            range(
                accepted,
                "0.4.1.post6",
                "0.4.8.post1",
                "sglang 0.4.1.post6 sdist: sglang/srt/server_args.py:355 (adds fp8_e4m3);"
                    + " sglang/srt/model_executor/model_runner.py:549 stores torch.float8_e4m3fn",
                List.of(ROCM_E5M2_FNUZ),
                Map.of("fp8_e4m3", FLOAT8_E4M3FN)),
            range(
                accepted,
                "0.4.8.post1",
                "0.5.4",
                "sglang 0.4.8.post1 sdist: sglang/srt/server_args.py (the choices of 0.4.1.post6);"
                    + " ROCm stores fp8_e4m3 as fnuz from here",
                List.of(ROCM_FNUZ)),
            range(
                accepted,
                "0.5.4",
                "0.5.4.post3",
                "sglang 0.5.4 sdist: sglang/srt/server_args.py:1789 (adds bf16 and bfloat16);"
                    + " sglang/srt/model_executor/model_runner.py:1633 stores torch.bfloat16",
                List.of(ROCM_FNUZ),
                Map.of("bf16", BFLOAT16, "bfloat16", BFLOAT16)),
            range(
                accepted,
                "0.5.4.post3",
                "0.5.6.post2",
                "sglang 0.5.4.post3 sdist: sglang/srt/server_args.py:2015 (adds fp4_e2m1);"
                    + " sglang/srt/model_executor/model_runner.py:1534 stores"
                    + " torch.float4_e2m1fn_x2, scaled per 16 values"
                    + " (sglang/srt/layers/quantization/kvfp4_tensor.py:46) by an E8M0 exponent"
                    + " (:51, exponent + 127 as uint8)",
                List.of(ROCM_FNUZ),
                Map.of("fp4_e2m1", FP4_E2M1_BLOCK16_E8M0)),
            range(
                accepted,
                "0.5.6.post2",
                "0.5.16",
                "sglang 0.5.6.post2 sdist: sglang/srt/server_args.py (the choices of 0.5.4.post3);"
                    + " ROCm stores its device's FP8 from here",
                ROCM_PLATFORM_FP8),
            range(
                without(accepted, "fp4_e2m1"),
                "0.5.16",
                null,
                "sglang 0.5.16 wheel: sglang/srt/server_args.py:616 (adds fp4_mx_block16, mxfp8"
                    + " and nvfp4; from 0.5.20 in sglang/srt/arg_groups/fields/model.py:208):"
                    + " nvfp4 and fp4_mx_block16 store torch.float4_e2m1fn_x2"
                    + " (sglang/srt/mem_cache/kv_cache_dtype.py:62), scaled per 16 by FP8 E4M3 and"
                    + " by E8M0 (sglang/srt/layers/quantization/fp4_kv_cache_quant_method.py:333"
                    + " and :559), mxfp8 float8_e4m3fn per 32 (sglang/srt/mem_cache/"
                    + "memory_pool.py:3197); fp4_e2m1 is still listed through 0.5.20 but"
                    + " sglang/srt/mem_cache/kv_cache_dtype.py:57 refuses it at startup"
                    + " (\"deprecated. Use --kv-cache-dtype=fp4_mx_block16\"), so it is not"
                    + " accepted here; 0.5.21 drops it from the choices"
                    + " (arg_groups/fields/model.py:201); the same through 0.5.23",
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

  private static final FlagSpec QUANTIZATION_PARAM_PATH =
      FlagSpec.value("--quantization-param-path")
          .withKvEffect("loads per-layer KV-cache scaling factors from a JSON file");
  private static final FlagSpec CONFIG =
      FlagSpec.value("--config")
          .withKvEffect(
              "reads server arguments from a YAML file, which can set KV-cache options the"
                  + " webhook cannot see (the rendered --kv-cache-dtype still wins over the"
                  + " file's)");
  private static final FlagSpec DRAFT_KV_CACHE_DTYPE =
      FlagSpec.value("--speculative-draft-kv-cache-dtype")
          .withKvEffect(
              "stores the speculative draft model's KV cache in another dtype; HiCache's Mooncake"
                  + " store keeps the draft pool beside the target's");

  /**
   * Per range: every option sharing three or more leading characters with --kv-cache-dtype (an
   * ambiguous prefix of it is refused naming them all), and for each other flag read here one
   * option sharing its longest prefix, so each prefix resolves as that release's parser resolves it
   * (tools/engine-facts/extract.py suggest sglang). The HiCache flags the attachment renders are
   * listed from the start because the kit requires every rendered flag in every inventory; SGLang
   * has --enable-hierarchical-cache from 0.4.2.post1 and the storage backend flags from 0.4.9.post3
   * and 0.5.1.post3, and no cache attaches to an earlier release.
   */
  private static final List<FlagInventory> INVENTORIES =
      new InventoryRanges()
          .from(
              "0.2.14",
              ArgvDialect.argparse(),
              "sglang 0.2.14 sdist: sglang/srt/server_args.py:200 (--kv-cache-dtype, the only --k"
                  + " flag), plain argparse.ArgumentParser (sglang/launch_server.py)",
              FlagSpec.toggle("--help"),
              FlagSpec.value("--host"),
              FlagSpec.value("--port"),
              FlagSpec.value("--kv-cache-dtype"),
              FlagSpec.toggle("--enable-mixed-chunk"),
              FlagSpec.toggle(HIERARCHICAL_CACHE),
              FlagSpec.value(STORAGE_BACKEND),
              FlagSpec.value(STORAGE_BACKEND_EXTRA_CONFIG))
          .from(
              "0.4.1.post2",
              ArgvDialect.argparse(),
              "sglang 0.4.1.post2 sdist: sglang/srt/server_args.py:442 (--prefill-only-one-req"
                  + " makes --p ambiguous)",
              FlagSpec.value("--prefill-only-one-req"))
          .from(
              "0.4.1.post6",
              ArgvDialect.argparse(),
              "sglang 0.4.1.post6 sdist: sglang/srt/server_args.py:358"
                  + " (--quantization-param-path)",
              QUANTIZATION_PARAM_PATH,
              FlagSpec.value("--quantization"))
          .from(
              "0.4.3.post4",
              ArgvDialect.argparse(),
              "sglang 0.4.3.post4 sdist: sglang/srt/server_args.py (--prefill-only-one-req gone)")
          .removing("--prefill-only-one-req")
          .from(
              "0.4.4",
              ArgvDialect.argparse(),
              "sglang 0.4.4 sdist: sglang/srt/server_args.py:512 (--page-size)",
              FlagSpec.value("--page-size"))
          .from(
              "0.4.6.post5",
              ArgvDialect.argparse(),
              "sglang 0.4.6.post5 sdist: sglang/srt/server_args.py:832 (--kv-events-config makes"
                  + " --kv ambiguous)",
              FlagSpec.value("--kv-events-config"))
          .from(
              "0.5.3rc2",
              ArgvDialect.argparse(),
              "sglang 0.5.3rc2 sdist: sglang/srt/server_args.py:2869 (--config FILE.yaml; the"
                  + " command line wins over the file) and :2648 (--keep-mm-feature-on-device)",
              CONFIG,
              FlagSpec.value("--constrained-json-whitespace-pattern"),
              FlagSpec.toggle("--keep-mm-feature-on-device"))
          .from(
              "0.5.4",
              ArgvDialect.argparse(),
              "sglang 0.5.4 sdist: sglang/srt/server_args.py:2746 (the --kt-* flags)",
              FlagSpec.value("--kt-amx-weight-path"),
              FlagSpec.value("--kt-amx-method"),
              FlagSpec.value("--kt-cpuinfer"),
              FlagSpec.value("--kt-threadpool-count"),
              FlagSpec.value("--kt-num-gpu-experts"))
          .from(
              "0.5.5",
              ArgvDialect.argparse(),
              "sglang 0.5.5 sdist: sglang/srt/server_args.py:3073"
                  + " (--kt-max-deferred-experts-per-token)",
              FlagSpec.value("--kt-max-deferred-experts-per-token"))
          .from(
              "0.5.5.post1",
              ArgvDialect.argparse(),
              "sglang 0.5.5.post1 sdist: sglang/srt/server_args.py:3026 (--kt-weight-path and"
                  + " --kt-method replace --kt-amx-*)",
              FlagSpec.value("--kt-weight-path"),
              FlagSpec.value("--kt-method"))
          .removing("--kt-amx-weight-path", "--kt-amx-method")
          .from(
              "0.5.10rc0",
              ArgvDialect.argparse(),
              "sglang 0.5.10rc0 sdist: sglang/srt/server_args.py:5101 (--enable-hisparse makes"
                  + " --enable-hi ambiguous)",
              FlagSpec.toggle("--enable-hisparse"))
          .from(
              "0.5.13",
              ArgvDialect.argparse(),
              "sglang 0.5.13 wheel: sglang/srt/server_args.py:6476 (the --kv-canary flags make"
                  + " --kv-c ambiguous)",
              FlagSpec.value("--kv-canary"),
              FlagSpec.value("--kv-canary-real-data"),
              FlagSpec.value("--kv-canary-sweep-interval"))
          .from(
              "0.5.18",
              ArgvDialect.argparse(),
              "sglang 0.5.18 wheel: sglang/srt/server_args.py:2187"
                  + " (--speculative-draft-kv-cache-dtype) and"
                  + " sglang/srt/mem_cache/storage/mooncake_store/mooncake_store.py:701 (the"
                  + " store keeps a draft pool)",
              DRAFT_KV_CACHE_DTYPE,
              FlagSpec.value("--speculative-draft-attention-backend"))
          .from(
              "0.5.21",
              ArgvDialect.argparse(),
              "sglang 0.5.21 wheel: sglang/srt/server_args.py:579 (ServerArgs assembled from"
                  + " sglang/srt/arg_groups; --keep-mm-feature-on-device gone); the same through"
                  + " 0.5.23")
          .removing("--keep-mm-feature-on-device")
          .build();

  private static final String SHAPE =
      "shaped after that release's server handler (asdict(server_args) merged with the"
          + " scheduler info; values illustrative, not captured from a running server)";

  private static final List<DtypeReport> REPORTS =
      List.of(
          new ServerInfoReport(
              VersionRange.of("0.2.14", "0.3.6.post1"),
              "/get_server_args",
              false,
              "sglang 0.2.14 sdist: sglang/srt/server.py:127 (GET /get_server_args:"
                  + " dataclasses.asdict(server_args), kv_cache_dtype among them), through 0.3.6",
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
              "sglang 0.3.6.post1 sdist: sglang/srt/server.py:150 (GET /get_server_info, which"
                  + " replaces /get_server_args: server args merged flat with the scheduler's"
                  + " info); from 0.4.1.post7 in sglang/srt/entrypoints/http_server.py:155",
              List.of(
                  fixture(
                      "get-server-info-v0.4.1.post6.json", "fp8_e5m2", "v0.4.1.post6, " + SHAPE))),
          new ServerInfoReport(
              VersionRange.of("0.4.6.post4", "0.5.6"),
              "/get_server_info",
              true,
              "sglang 0.4.6.post4 sdist: sglang/srt/entrypoints/http_server.py:220 (GET"
                  + " /get_server_info with an internal_states list, one per data-parallel rank)",
              List.of(fixture("get-server-info-v0.5.0.json", "fp8_e4m3", "v0.5.0, " + SHAPE))),
          new ServerInfoReport(
              VersionRange.of("0.5.6", null),
              "/server_info",
              true,
              "sglang 0.5.6 sdist: sglang/srt/entrypoints/http_server.py:541 (GET /server_info,"
                  + " with internal_states); /get_server_info (:531) stays as a deprecated alias"
                  + " that logs a warning and returns the same body; the same through 0.5.23"
                  + " (http_server.py:864)",
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
    String v = version.orElse(NEWEST_READ);
    return Optional.of("lmsysorg/sglang:" + (v.startsWith("v") ? v : "v" + v));
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
