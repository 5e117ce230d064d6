package com.example.kvcache.trtllm;

import ai.gpustack.kvcache.api.KvFormat;
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
import java.util.Map;
import java.util.Optional;
import java.util.Set;

/**
 * TensorRT-LLM's OpenAI server, {@code trtllm-serve <model>}. Its command line is Python click:
 * option names match exactly (no prefixes, no dash/underscore folding), {@code --name=value} is
 * accepted, and the dtype option is spelled with underscores, {@code --kv_cache_dtype}, so {@code
 * --kv-cache-dtype} is an unknown option there (click exits 2 on it).
 *
 * <p>This module renders the dtype only. How a TensorRT-LLM build attaches to a Mooncake store is
 * not something this example claims, so it renders no connector arguments and owns no keys. Note
 * that the LLM-API YAML given with {@code --extra_llm_api_options} can also set {@code
 * kv_cache_config.dtype}; the flag on the command line is what this module hands the Binding's
 * dtype through.
 */
@AutoService(Engine.class)
public final class TrtllmEngine implements Engine {
  static final String DTYPE_FLAG = "--kv_cache_dtype";

  private static final SpellingTable SPELLINGS =
      SpellingTable.builder()
          .addEntries(
              DtypeSpellings.of(
                  "1.3.0",
                  null,
                  "NVIDIA/TensorRT-LLM PR #11487 (click.Choice on --kv_cache_dtype in"
                      + " tensorrt_llm/commands/serve.py; reviewed 2026-02/03); trtllm-serve"
                      + " 1.3.0rc22 prints --kv_cache_dtype [auto|fp8|nvfp4]; fp8 is E4M3"
                      + " (examples/pytorch/README.md: \"FP8(e4m3) kvcache\")",
                  Map.of(
                      "auto", KvFormat.MODEL_DEPENDENT,
                      "fp8", KvFormat.FLOAT8_E4M3FN,
                      "nvfp4", KvFormat.NVFP4)))
          .build();

  private static final List<FlagInventory> INVENTORIES =
      List.of(
          FlagInventory.builder()
              .versions(VersionRange.of("1.3.0", null))
              .source(
                  "NVIDIA/TensorRT-LLM tensorrt_llm/commands/serve.py options of trtllm-serve"
                      + " (click; exact names only)")
              .addFlags(
                  FlagSpec.toggle("--help"),
                  FlagSpec.value("--host"),
                  FlagSpec.value("--port"),
                  FlagSpec.value("--backend"),
                  FlagSpec.value("--tokenizer"),
                  FlagSpec.value("--max_batch_size"),
                  FlagSpec.value("--max_num_tokens"),
                  FlagSpec.value("--max_seq_len"),
                  FlagSpec.value("--tp_size"),
                  FlagSpec.value("--pp_size"),
                  FlagSpec.value("--kv_cache_free_gpu_memory_fraction"),
                  FlagSpec.value(DTYPE_FLAG),
                  FlagSpec.value("--extra_llm_api_options"),
                  FlagSpec.toggle("--trust_remote_code"))
              .build());

  @Override
  public String id() {
    return "TensorRT-LLM";
  }

  @Override
  public String artifact() {
    return "com.example.kvcache:kvcache-engine-trtllm";
  }

  @Override
  public String dtypeFlag() {
    return DTYPE_FLAG;
  }

  @Override
  public SpellingTable dtypeSpellings() {
    return SPELLINGS;
  }

  @Override
  public ArgvDialect dialect() {
    return ArgvDialect.click();
  }

  @Override
  public List<FlagInventory> flagInventories() {
    return INVENTORIES;
  }

  @Override
  public List<String> baseArgv(String model) {
    return List.of("trtllm-serve", model);
  }

  @Override
  public Optional<String> defaultImage(Optional<String> version) {
    return Optional.of("nvcr.io/nvidia/tensorrt-llm/release:" + version.orElse("latest"));
  }

  @Override
  public int defaultPort() {
    return 8000;
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

  @Override
  public Set<String> launchPrograms() {
    return Set.of("trtllm-serve");
  }
}
