package ai.gpustack.kvcache.engine.sglang;

import ai.gpustack.kvcache.api.EnvVar;
import ai.gpustack.kvcache.spi.ArgGroup;
import ai.gpustack.kvcache.spi.ArgvDialect;
import ai.gpustack.kvcache.spi.AttachmentRequest;
import ai.gpustack.kvcache.spi.CacheAttachment;
import ai.gpustack.kvcache.spi.DtypeSpellings;
import ai.gpustack.kvcache.spi.Engine;
import ai.gpustack.kvcache.spi.FlagInventory;
import ai.gpustack.kvcache.spi.FlagSpec;
import ai.gpustack.kvcache.spi.SpellingTable;
import ai.gpustack.kvcache.spi.VersionRange;
import com.google.auto.service.AutoService;
import java.util.List;
import java.util.Optional;
import java.util.Set;

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

  private static final SpellingTable SPELLINGS =
      SpellingTable.builder()
          .addEntries(
              DtypeSpellings.of(
                  "0.2.14",
                  "0.4.2",
                  "sgl-project/sglang PR #1204 (Aug 2024) choices in"
                      + " python/sglang/srt/server_args.py; release boundaries not verified",
                  "auto",
                  "fp8_e5m2"),
              DtypeSpellings.of(
                  "0.4.2",
                  "0.5.3",
                  "sgl-project/sglang PR #2786 \"Support FP8 E4M3 KV Cache\" (merged Jan 2025)",
                  "auto",
                  "fp8_e4m3",
                  "fp8_e5m2"),
              DtypeSpellings.of(
                  "0.5.3",
                  "0.5.4",
                  "sgl-project/sglang PR #10078 adds fp4_e2m1 (Sept 2025)",
                  "auto",
                  "fp4_e2m1",
                  "fp8_e4m3",
                  "fp8_e5m2"),
              DtypeSpellings.of(
                  "0.5.4",
                  "0.5.18",
                  "sgl-project/sglang PR #11749 \"support server arg override KV cache to bf16\""
                      + " (merged Oct 2025); choices as stored in python/sglang/srt/server_args.py",
                  "auto",
                  "bf16",
                  "bfloat16",
                  "fp4_e2m1",
                  "fp8_e4m3",
                  "fp8_e5m2"),
              DtypeSpellings.of(
                  "0.5.18",
                  null,
                  "sgl-project/sglang python/sglang/srt/arg_groups/fields/model.py @"
                      + " 0116c6066d6ead4b97c0468f65e04cad47ca021e (v0.5.18 docs agree);"
                      + " mxfp8, nvfp4 and fp4_mx_block16 from PR #21601",
                  "auto",
                  "bf16",
                  "bfloat16",
                  "fp4_mx_block16",
                  "fp8_e4m3",
                  "fp8_e5m2",
                  "mxfp8",
                  "nvfp4"))
          .build();

  private static final List<FlagInventory> INVENTORIES =
      List.of(
          FlagInventory.builder()
              .versions(VersionRange.of("0.2.14", null))
              .source(
                  "sgl-project/sglang python/sglang/srt/server_args.py (2024-2026 revisions):"
                      + " --kv-cache-dtype is the only --kv-cache flag, so --kv-cache abbreviates it")
              .addFlags(
                  FlagSpec.toggle("--help"),
                  FlagSpec.value("--host"),
                  FlagSpec.value("--port"),
                  FlagSpec.value("--model-path"),
                  FlagSpec.value("--model"),
                  FlagSpec.value("--kv-cache-dtype"),
                  FlagSpec.value("--kv-events-config"),
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
                  FlagSpec.value("--disaggregation-bootstrap-port"))
              .build());

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
    return Set.of("python -m sglang.launch_server", "sglang");
  }
}
