package ai.gpustack.kvcache.api;

import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;

/**
 * The bytes a KV cache block holds, as far as another engine reading it must agree: the element
 * type and, for scaled formats, the scale layout. Two engines writing one reuse domain must write
 * one format; a dtype spelling means a format only through an engine at a version, which is what
 * engine modules map.
 *
 * <p>Open: the constants here are the formats this library knows, shared by every engine that
 * stores them; an engine module names a format of its own with {@link #engineDefined} (llama.cpp's
 * GGML block types), which equals only the same name from the same engine. Compare with {@code
 * equals}, never {@code ==}.
 */
public final class KvFormat {
  private static final Map<String, KvFormat> LIBRARY = new LinkedHashMap<>();

  /** {@code auto}: the model's dtype, or what its checkpoint's quantization config asks for. */
  public static final KvFormat MODEL_DEPENDENT =
      library("model-dependent", "the model's dtype or its checkpoint's KV quantization");

  public static final KvFormat BFLOAT16 = library("bfloat16", "16-bit brain float");
  public static final KvFormat FLOAT16 = library("float16", "IEEE 16-bit float");

  /** OCP FP8 E4M3 with NaN only at 0x7f/0xff (PyTorch {@code float8_e4m3fn}). */
  public static final KvFormat FLOAT8_E4M3FN =
      library("float8_e4m3fn", "FP8 E4M3 (finite, OCP), one scale per tensor");

  /** FP8 E4M3 with one NaN and no negative zero, exponent bias 8 (AMD MI300's native FP8). */
  public static final KvFormat FLOAT8_E4M3FNUZ =
      library("float8_e4m3fnuz", "FP8 E4M3 (fnuz, exponent bias 8), one scale per tensor");

  public static final KvFormat FLOAT8_E5M2 =
      library("float8_e5m2", "FP8 E5M2, one scale per tensor");
  public static final KvFormat FLOAT8_E5M2FNUZ =
      library("float8_e5m2fnuz", "FP8 E5M2 (fnuz, exponent bias 16), one scale per tensor");

  /** vLLM's DeepSeek MLA layout: FP8 E4M3 latent with per-tile scales and a 16-bit RoPE part. */
  public static final KvFormat FP8_DS_MLA =
      library("fp8_ds_mla", "DeepSeek MLA layout: FP8 E4M3 latent, per-tile scales, BF16 RoPE");

  public static final KvFormat FLOAT8_E4M3FN_PER_TOKEN_HEAD =
      library(
          "float8_e4m3fn_per_token_head", "FP8 E4M3 with an inline FP32 scale per token and head");
  public static final KvFormat INT8_PER_TOKEN_HEAD =
      library("int8_per_token_head", "int8 with an inline FP32 scale per token and head");
  public static final KvFormat INT4_PER_TOKEN_HEAD =
      library(
          "int4_per_token_head",
          "int4, two per byte, with an inline FP32 scale per token and head");

  /**
   * LMDeploy's online KV quantization: {@code (x - zero) / scale}, both kept per token and head.
   */
  public static final KvFormat INT8_ASYM_PER_TOKEN_HEAD =
      library("int8_asym_per_token_head", "int8 with a scale and a zero point per token and head");

  public static final KvFormat INT4_ASYM_PER_TOKEN_HEAD =
      library(
          "int4_asym_per_token_head",
          "int4, two per byte, with a scale and a zero point per token and head");

  /** LMDeploy before 0.4.0: int8 with scales and zero points calibrated offline, not per token. */
  public static final KvFormat INT8_CALIBRATED =
      library("int8_calibrated", "int8 with a scale and zero point calibrated offline");

  /** NVIDIA FP4: E2M1 elements in blocks of 16 with an FP8 E4M3 scale each. */
  public static final KvFormat NVFP4 =
      library("nvfp4", "FP4 E2M1, blocks of 16 with FP8 E4M3 scales");

  public static final KvFormat NVFP4_DS_MLA =
      library(
          "nvfp4_ds_mla", "DeepSeek MLA layout: FP4 E2M1 latent, FP8 E4M3 RoPE and block scales");

  /** NVFP4's layout, each block scaled by max/6 or max/4, whichever reconstructs it better. */
  public static final KvFormat NVFP4_4OVER6 =
      library("nvfp4_4over6", "NVFP4 layout, each block scaled by max/6 or max/4");

  /** OCP MX FP8: E4M3 elements in blocks of 32 with an E8M0 scale each. */
  public static final KvFormat MXFP8 =
      library("mxfp8", "FP8 E4M3, blocks of 32 with E8M0 scales (OCP MX)");

  /** OCP MX FP4: E2M1 elements in blocks of 32 with an E8M0 scale each. */
  public static final KvFormat MXFP4 =
      library("mxfp4", "FP4 E2M1, blocks of 32 with E8M0 scales (OCP MX)");

  /** E2M1 elements in blocks of 16 with an E8M0 scale each (SGLang's {@code fp4_mx_block16}). */
  public static final KvFormat FP4_E2M1_BLOCK16_E8M0 =
      library("fp4_e2m1_block16_e8m0", "FP4 E2M1, blocks of 16 with E8M0 scales");

  public static final KvFormat TURBOQUANT_K8V4 =
      library("turboquant_k8v4", "TurboQuant: FP8 keys, 4-bit uniform values");
  public static final KvFormat TURBOQUANT_4BIT_NC =
      library(
          "turboquant_4bit_nc", "TurboQuant: rotated 4-bit keys with norms, 4-bit uniform values");
  public static final KvFormat TURBOQUANT_K3V4_NC =
      library(
          "turboquant_k3v4_nc", "TurboQuant: rotated 3-bit keys with norms, 4-bit uniform values");
  public static final KvFormat TURBOQUANT_3BIT_NC =
      library(
          "turboquant_3bit_nc", "TurboQuant: rotated 3-bit keys with norms, 3-bit uniform values");

  /**
   * vLLM's {@code ultraquant_4bit} (vllm 0.32.0 sdist,
   * vllm/v1/attention/backends/ultraquant_attn.py:5: "FP4 E2M1 codes + UE8M0 power-of-two
   * per-group-32 scales with Hadamard-rotated keys"): MXFP4's element and scale, but the keys are
   * rotated first, so another reader's keys would not match.
   */
  public static final KvFormat ULTRAQUANT_4BIT =
      library("ultraquant_4bit", "UltraQuant: FP4 E2M1, E8M0 scales per 32, Hadamard-rotated keys");

  /**
   * vLLM's Octave formats (vllm 0.33.0 sdist, vllm/v1/attention/ops/rocm_octave.py:3): each token
   * and head in one slot of Lloyd-Max codebook codes after random sign flips and Walsh-Hadamard
   * rotations, with FP16 scales; block keys give RoPE blocks 4-bit and NoPE blocks 3-bit codes, a
   * scale per 64 dimensions; values are rotated whole.
   */
  public static final KvFormat OCTAVE_K3V4 =
      library(
          "octave_k3v4",
          "Octave: rotated keys (4-bit RoPE, 3-bit NoPE blocks of 64), rotated 4-bit values,"
              + " codebook codes, FP16 scales");

  /** {@link #OCTAVE_K3V4} with 3-bit values. */
  public static final KvFormat OCTAVE_K3V3 =
      library(
          "octave_k3v3",
          "Octave: rotated keys (4-bit RoPE, 3-bit NoPE blocks of 64), rotated 3-bit values,"
              + " codebook codes, FP16 scales");

  /** Octave with keys rotated whole, all 3-bit under one scale (rocm_octave.py:11). */
  public static final KvFormat OCTAVE_K3V3_COMPACT =
      library(
          "octave_k3v3_compact",
          "Octave: keys rotated whole, 3-bit, one scale; rotated 3-bit values, codebook codes");

  /** LMDeploy's {@code --quant-policy 42}: 3-bit Lloyd-Max keys plus a 1-bit QJL residual sign. */
  public static final KvFormat TURBOQUANT_K4V2_QJL =
      library(
          "turboquant_k4v2_qjl",
          "TurboQuant: 3-bit codebook keys with a 1-bit QJL sign and two norms, 2-bit values");

  private static final java.util.regex.Pattern ID =
      java.util.regex.Pattern.compile("[a-z0-9_]{1,40}");

  private final Optional<String> engine;
  private final String id;
  private final String description;

  private KvFormat(Optional<String> engine, String id, String description) {
    this.engine = engine;
    this.id = id;
    this.description = description;
  }

  private static KvFormat library(String id, String description) {
    KvFormat format = new KvFormat(Optional.empty(), id, description);
    LIBRARY.put(id, format);
    return format;
  }

  /**
   * A format only {@code engine} stores, by that engine's name for it ({@code q4_0}: llama.cpp's
   * GGML Q4_0 blocks); equal to the same name from the same engine only. Throws naming the id when
   * it is not 1 to 40 of {@code a-z}, {@code 0-9} and {@code _}, or is a format this library knows
   * (use its constant: two names for one format would let two engines write different bytes).
   */
  public static KvFormat engineDefined(String engine, String id, String description) {
    if (engine == null || engine.isBlank() || id == null || !ID.matcher(id).matches()) {
      throw new IllegalArgumentException(
          "engine-defined KV format "
              + Quoting.quote(String.valueOf(id))
              + " of engine "
              + Quoting.quote(String.valueOf(engine))
              + " must be named by its engine and 1 to 40 of a-z, 0-9 and _");
    }
    KvFormat known = LIBRARY.get(id);
    if (known != null) {
      throw new IllegalArgumentException(
          "KV format "
              + Quoting.quote(id)
              + " is one this library knows: use KvFormat."
              + id.toUpperCase(java.util.Locale.ROOT)
              + " instead of an engine-defined one");
    }
    return new KvFormat(Optional.of(engine), id, description);
  }

  /** The formats this library knows, in declaration order. */
  public static List<KvFormat> known() {
    return List.copyOf(LIBRARY.values());
  }

  /**
   * The formats this library knows, as the enum this class was.
   *
   * @deprecated use {@link #known()}; kept so modules written against the enum still compile
   */
  @Deprecated
  public static KvFormat[] values() {
    return known().toArray(KvFormat[]::new);
  }

  /**
   * The known format whose constant is {@code name} ({@code FLOAT8_E4M3FN}), as the enum's was.
   *
   * @deprecated compare ids instead; kept so modules written against the enum still compile
   */
  @Deprecated
  public static KvFormat valueOf(String name) {
    return known().stream()
        .filter(f -> f.name().equals(name))
        .findFirst()
        .orElseThrow(() -> new IllegalArgumentException("no KV format constant " + name));
  }

  /**
   * The constant's name ({@code FLOAT8_E4M3FN}), as the enum's was.
   *
   * @deprecated use {@link #id()}; kept so modules written against the enum still compile
   */
  @Deprecated
  public String name() {
    return id.toUpperCase(java.util.Locale.ROOT).replace('-', '_');
  }

  /** The engine whose own format this is; empty for a format this library knows. */
  public Optional<String> engine() {
    return engine;
  }

  /** The name in output and documents: {@code float8_e4m3fn}. */
  public String id() {
    return id;
  }

  /** What the bytes are, in a few words. */
  public String description() {
    return description;
  }

  /** Whether the format is only known once the model is: {@code auto}. */
  public boolean modelDependent() {
    return equals(MODEL_DEPENDENT);
  }

  @Override
  public boolean equals(Object o) {
    return o instanceof KvFormat other && engine.equals(other.engine) && id.equals(other.id);
  }

  @Override
  public int hashCode() {
    return Objects.hash(engine, id);
  }

  /** The id; an engine-defined format's is prefixed with its engine: {@code llama.cpp/q4_0}. */
  @Override
  public String toString() {
    return engine.map(e -> e + "/" + id).orElse(id);
  }
}
