package ai.gpustack.kvcache.engine.vllm;

import static ai.gpustack.kvcache.api.KvFormat.*;

import ai.gpustack.kvcache.api.KvFormat;
import ai.gpustack.kvcache.spi.DtypeSpellings;
import ai.gpustack.kvcache.spi.PlatformFormats;
import ai.gpustack.kvcache.spi.SpellingTable;
import ai.gpustack.kvcache.spi.VersionRange;
import java.util.Map;
import java.util.TreeMap;

/** vLLM's {@code --kv-cache-dtype} spellings per release, with the formats each one stores. */
final class VllmSpellings {
  private VllmSpellings() {}

  /**
   * ROCm before 0.8.0: every FP8 KV value goes through hip_fp8, E4M3 with negative_zero_nan on any
   * AMD GPU (software-simulated off MI300), which is the fnuz encoding.
   */
  private static final PlatformFormats ROCM_HIP_FP8_041 =
      PlatformFormats.builder()
          .platform("ROCm")
          .putFormats("fp8", FLOAT8_E4M3FNUZ)
          .source(
              "vllm 0.4.1 sdist: csrc/quantization/fp8/amd_detail/hip_float8.h:50"
                  + " (to_float8<4, 3, float, negative_zero_nan=true>: E4M3 fnuz on every ROCm GPU)")
          .build();

  private static final PlatformFormats ROCM_HIP_FP8 =
      PlatformFormats.builder()
          .platform("ROCm")
          .putFormats("fp8", FLOAT8_E4M3FNUZ)
          .putFormats("fp8_e4m3", FLOAT8_E4M3FNUZ)
          .source(
              "vllm 0.4.3 sdist: csrc/quantization/fp8/amd/hip_float8.h:42 (to_float8<4, 3, float,"
                  + " negative_zero_nan=true>: E4M3 fnuz on every ROCm GPU, through 0.7.3)")
          .build();

  /**
   * ROCm from 0.8.0: fp8 and fp8_e4m3 store the device's FP8, fnuz on MI300-class GPUs (gfx94x) and
   * OCP float8_e4m3fn on gfx950 and gfx12. The GPU is only known at run time.
   */
  private static final PlatformFormats ROCM_GFX94X =
      PlatformFormats.builder()
          .platform("ROCm gfx94x (MI300, MI308, MI325)")
          .putFormats("fp8", FLOAT8_E4M3FNUZ)
          .putFormats("fp8_e4m3", FLOAT8_E4M3FNUZ)
          .source(
              "vllm 0.8.0 sdist: vllm/platforms/rocm.py:243 (is_fp8_fnuz(): \"gfx94\" in the"
                  + " device's gcnArchName, read at run time; fp8_dtype() at :246 is then"
                  + " float8_e4m3fnuz, else float8_e4m3fn) and csrc/quantization/fp8/amd/"
                  + "quant_utils.cuh:30 (OCP or FNUZ kernels); the same in every later release"
                  + " (0.34.0: vllm/platforms/rocm.py:1298)")
          .build();

  /** A plugin's fact: the TPU generation decides at run time. */
  private static final PlatformFormats TPU_V6E =
      PlatformFormats.builder()
          .platform("TPU v6e (tpu-inference plugin)")
          .putFormats("fp8", FLOAT8_E5M2)
          .source(
              "the vllm-project/tpu-inference package's platform fp8_dtype() (\"Automatically"
                  + " using fp8_e5m2 for FP8 KV cache on TPU v6e\"), decided at run time by the TPU"
                  + " generation; vLLM's own files only hand TPU to that plugin (vllm 0.29.0 sdist:"
                  + " vllm/platforms/tpu.py:10), so no vLLM release file states it")
          .build();

  /** Each row accepts what the one before it did and adds to it, except 0.4.1's rename. */
  static SpellingTable spellingTable() {
    Map<String, KvFormat> accepted = new TreeMap<>(Map.of("auto", MODEL_DEPENDENT));
    return SpellingTable.builder()
        .addEntries(
            DtypeSpellings.of(
                "0.3.0",
                "0.4.1",
                "vllm 0.3.0 sdist: vllm/engine/arg_utils.py:129 (choices auto fp8_e5m2, through"
                    + " 0.4.0.post1); fp8_e5m2 is E5M2 (csrc/quantization/fp8_e5m2_kvcache/"
                    + "quant_utils.cuh:16, namespace fp8_e5m2_unscaled)",
                Map.of("auto", MODEL_DEPENDENT, "fp8_e5m2", FLOAT8_E5M2)),
            DtypeSpellings.builder()
                .versions(VersionRange.of("0.4.1", "0.4.3"))
                .source(
                    "vllm 0.4.1 sdist: vllm/engine/arg_utils.py:178 (choices auto fp8: fp8_e5m2"
                        + " renamed); fp8 is E5M2 on CUDA, its help at arg_utils.py:175: \"FP8_E5M2"
                        + " (without scaling) is only supported on cuda version greater than 11.8."
                        + " On ROCm (AMD GPU), FP8_E4M3 is instead supported\"")
                .putFormats("auto", MODEL_DEPENDENT)
                .putFormats("fp8", FLOAT8_E5M2)
                .addSpellings("auto", "fp8")
                .addPlatforms(ROCM_HIP_FP8_041)
                .build(),
            spellings(
                accepted,
                "0.4.3",
                "0.8.0",
                "vllm 0.4.3 sdist: vllm/engine/arg_utils.py:195 (choices auto fp8 fp8_e5m2"
                    + " fp8_e4m3; the help at :192 says \"fp8 (=fp8_e4m3)\")",
                Map.of("fp8", FLOAT8_E4M3FN, "fp8_e4m3", FLOAT8_E4M3FN, "fp8_e5m2", FLOAT8_E5M2),
                ROCM_HIP_FP8),
            spellings(
                accepted,
                "0.8.0",
                "0.10.0",
                "vllm 0.8.0 sdist: the spellings of 0.4.3 (vllm/engine/arg_utils.py, from 0.8.5 the"
                    + " CacheDType Literal of vllm/config.py:1291); ROCm's FP8 follows the device"
                    + " from here",
                Map.of(),
                ROCM_GFX94X),
            spellings(
                accepted,
                "0.10.0",
                "0.11.0",
                "vllm 0.10.0 sdist: vllm/config.py:1609 (CacheDType adds fp8_inc; 0.10.1 moves it"
                    + " to vllm/config/cache.py:25); fp8_inc stores torch.float8_e4m3fn"
                    + " (STR_DTYPE_TO_TORCH_DTYPE, vllm/utils/__init__.py:169)",
                Map.of("fp8_inc", FLOAT8_E4M3FN),
                ROCM_GFX94X),
            spellings(
                accepted,
                "0.11.0",
                "0.11.1",
                "vllm 0.11.0 sdist: vllm/config/cache.py:25 (CacheDType adds bfloat16)",
                Map.of("bfloat16", BFLOAT16),
                ROCM_GFX94X),
            spellings(
                accepted,
                "0.11.1",
                "0.18.0",
                "vllm 0.11.1 sdist: vllm/config/cache.py:24 (CacheDType adds fp8_ds_mla, DeepSeek's"
                    + " MLA layout)",
                Map.of("fp8_ds_mla", FP8_DS_MLA),
                ROCM_GFX94X),
            spellings(
                accepted,
                "0.18.0",
                "0.20.0",
                "vllm 0.18.0 sdist: vllm/config/cache.py:14 (CacheDType adds float16)",
                Map.of("float16", FLOAT16),
                ROCM_GFX94X),
            spellings(
                accepted,
                "0.20.0",
                "0.25.0",
                "vllm 0.20.0 sdist: vllm/config/cache.py:18 (CacheDType adds nvfp4, the"
                    + " turboquant_* formats and fp8_ and int8_per_token_head; int8_per_token_head"
                    + " stores torch.int8, vllm/utils/torch_utils.py:31)",
                Map.of(
                    "fp8_per_token_head", FLOAT8_E4M3FN_PER_TOKEN_HEAD,
                    "int8_per_token_head", INT8_PER_TOKEN_HEAD,
                    "nvfp4", NVFP4,
                    "turboquant_3bit_nc", TURBOQUANT_3BIT_NC,
                    "turboquant_4bit_nc", TURBOQUANT_4BIT_NC,
                    "turboquant_k3v4_nc", TURBOQUANT_K3V4_NC,
                    "turboquant_k8v4", TURBOQUANT_K8V4),
                ROCM_GFX94X),
            spellings(
                accepted,
                "0.25.0",
                "0.28.0",
                "vllm 0.25.0 sdist: vllm/config/cache.py:19 (CacheDType adds int4_per_token_head)",
                Map.of("int4_per_token_head", INT4_PER_TOKEN_HEAD),
                ROCM_GFX94X),
            spellings(
                accepted,
                "0.28.0",
                "0.29.0",
                "vllm 0.28.0 sdist: vllm/config/cache.py:19 (CacheDType adds nvfp4_4over6)",
                Map.of("nvfp4_4over6", NVFP4_4OVER6),
                ROCM_GFX94X),
            spellings(
                accepted,
                "0.29.0",
                "0.30.0",
                "vllm 0.29.0 sdist: vllm/config/cache.py (the CacheDType of 0.28.0); the TPU row"
                    + " starts here, where it was first checked",
                Map.of(),
                ROCM_GFX94X,
                TPU_V6E),
            spellings(
                accepted,
                "0.30.0",
                "0.32.0",
                "vllm 0.30.0 sdist: vllm/config/cache.py:39 (CacheDType adds nvfp4_ds_mla)",
                Map.of("nvfp4_ds_mla", NVFP4_DS_MLA),
                ROCM_GFX94X,
                TPU_V6E),
            spellings(
                accepted,
                "0.32.0",
                "0.33.0",
                "vllm 0.32.0 sdist: vllm/config/cache.py:39 (CacheDType adds ultraquant_4bit,"
                    + " vllm/v1/attention/backends/ultraquant_attn.py:5)",
                Map.of("ultraquant_4bit", ULTRAQUANT_4BIT),
                ROCM_GFX94X,
                TPU_V6E),
            spellings(
                accepted,
                "0.33.0",
                null,
                "vllm 0.33.0 sdist: vllm/config/cache.py:44 (CacheDType adds the octave_* formats,"
                    + " vllm/v1/attention/ops/rocm_octave.py:3); the field is CacheDType | str, so"
                    + " argparse takes any value and the validator at vllm/config/cache.py:470"
                    + " refuses one outside KV_CACHE_DTYPES: the Literal, plus what a platform"
                    + " plugin registers at run time (cache.py:114), which no vLLM file lists and"
                    + " this table does not accept; the same in 0.34.0",
                Map.of(
                    "octave_k3v3", OCTAVE_K3V3,
                    "octave_k3v3_compact", OCTAVE_K3V3_COMPACT,
                    "octave_k3v4", OCTAVE_K3V4),
                ROCM_GFX94X,
                TPU_V6E))
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
        .addPlatforms(platforms)
        .build();
  }
}
