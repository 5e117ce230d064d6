package ai.gpustack.kvcache.api;

/**
 * The bytes a KV cache block holds, as far as another engine reading it must agree: the element
 * type and, for scaled formats, the scale layout. Two engines writing one reuse domain must write
 * one format; a dtype spelling means a format only through an engine at a version, which is what
 * engine modules map. Closed: a spelling whose bytes are none of these needs a new constant here.
 */
public enum KvFormat {
  /** {@code auto}: the model's dtype, or what its checkpoint's quantization config asks for. */
  MODEL_DEPENDENT("model-dependent", "the model's dtype or its checkpoint's KV quantization"),
  BFLOAT16("bfloat16", "16-bit brain float"),
  FLOAT16("float16", "IEEE 16-bit float"),
  /** OCP FP8 E4M3 with NaN only at 0x7f/0xff (PyTorch {@code float8_e4m3fn}). */
  FLOAT8_E4M3FN("float8_e4m3fn", "FP8 E4M3 (finite, OCP), one scale per tensor"),
  /** FP8 E4M3 with one NaN and no negative zero, exponent bias 8 (AMD MI300's native FP8). */
  FLOAT8_E4M3FNUZ("float8_e4m3fnuz", "FP8 E4M3 (fnuz, exponent bias 8), one scale per tensor"),
  FLOAT8_E5M2("float8_e5m2", "FP8 E5M2, one scale per tensor"),
  FLOAT8_E5M2FNUZ("float8_e5m2fnuz", "FP8 E5M2 (fnuz, exponent bias 16), one scale per tensor"),
  /** vLLM's DeepSeek MLA layout: FP8 E4M3 latent with per-tile scales and a 16-bit RoPE part. */
  FP8_DS_MLA("fp8_ds_mla", "DeepSeek MLA layout: FP8 E4M3 latent, per-tile scales, BF16 RoPE"),
  FLOAT8_E4M3FN_PER_TOKEN_HEAD(
      "float8_e4m3fn_per_token_head", "FP8 E4M3 with an inline FP32 scale per token and head"),
  INT8_PER_TOKEN_HEAD("int8_per_token_head", "int8 with an inline FP32 scale per token and head"),
  INT4_PER_TOKEN_HEAD(
      "int4_per_token_head", "int4, two per byte, with an inline FP32 scale per token and head"),
  /**
   * LMDeploy's online KV quantization: {@code (x - zero) / scale}, both kept per token and head.
   */
  INT8_ASYM_PER_TOKEN_HEAD(
      "int8_asym_per_token_head", "int8 with a scale and a zero point per token and head"),
  INT4_ASYM_PER_TOKEN_HEAD(
      "int4_asym_per_token_head",
      "int4, two per byte, with a scale and a zero point per token and head"),
  /** LMDeploy before 0.4.0: int8 with scales and zero points calibrated offline, not per token. */
  INT8_CALIBRATED("int8_calibrated", "int8 with a scale and zero point calibrated offline"),
  /** NVIDIA FP4: E2M1 elements in blocks of 16 with an FP8 E4M3 scale each. */
  NVFP4("nvfp4", "FP4 E2M1, blocks of 16 with FP8 E4M3 scales"),
  NVFP4_DS_MLA(
      "nvfp4_ds_mla", "DeepSeek MLA layout: FP4 E2M1 latent, FP8 E4M3 RoPE and block scales"),
  /** NVFP4's layout, each block scaled by max/6 or max/4, whichever reconstructs it better. */
  NVFP4_4OVER6("nvfp4_4over6", "NVFP4 layout, each block scaled by max/6 or max/4"),
  /** OCP MX FP8: E4M3 elements in blocks of 32 with an E8M0 scale each. */
  MXFP8("mxfp8", "FP8 E4M3, blocks of 32 with E8M0 scales (OCP MX)"),
  /** OCP MX FP4: E2M1 elements in blocks of 32 with an E8M0 scale each. */
  MXFP4("mxfp4", "FP4 E2M1, blocks of 32 with E8M0 scales (OCP MX)"),
  /** E2M1 elements in blocks of 16 with an E8M0 scale each (SGLang's {@code fp4_mx_block16}). */
  FP4_E2M1_BLOCK16_E8M0("fp4_e2m1_block16_e8m0", "FP4 E2M1, blocks of 16 with E8M0 scales"),
  TURBOQUANT_K8V4("turboquant_k8v4", "TurboQuant: FP8 keys, 4-bit uniform values"),
  TURBOQUANT_4BIT_NC(
      "turboquant_4bit_nc", "TurboQuant: rotated 4-bit keys with norms, 4-bit uniform values"),
  TURBOQUANT_K3V4_NC(
      "turboquant_k3v4_nc", "TurboQuant: rotated 3-bit keys with norms, 4-bit uniform values"),
  TURBOQUANT_3BIT_NC(
      "turboquant_3bit_nc", "TurboQuant: rotated 3-bit keys with norms, 3-bit uniform values"),
  /**
   * vLLM's {@code ultraquant_4bit} (vllm 0.32.0 sdist,
   * vllm/v1/attention/backends/ultraquant_attn.py:5: "FP4 E2M1 codes + UE8M0 power-of-two
   * per-group-32 scales with Hadamard-rotated keys"): MXFP4's element and scale, but the keys are
   * rotated first, so another reader's keys would not match.
   */
  ULTRAQUANT_4BIT(
      "ultraquant_4bit", "UltraQuant: FP4 E2M1, E8M0 scales per 32, Hadamard-rotated keys"),
  /**
   * vLLM's Octave formats (vllm 0.33.0 sdist, vllm/v1/attention/ops/rocm_octave.py:3): each token
   * and head in one slot of Lloyd-Max codebook codes after random sign flips and Walsh-Hadamard
   * rotations, with FP16 scales; block keys give RoPE blocks 4-bit and NoPE blocks 3-bit codes, a
   * scale per 64 dimensions; values are rotated whole.
   */
  OCTAVE_K3V4(
      "octave_k3v4",
      "Octave: rotated keys (4-bit RoPE, 3-bit NoPE blocks of 64), rotated 4-bit values,"
          + " codebook codes, FP16 scales"),
  /** {@link #OCTAVE_K3V4} with 3-bit values. */
  OCTAVE_K3V3(
      "octave_k3v3",
      "Octave: rotated keys (4-bit RoPE, 3-bit NoPE blocks of 64), rotated 3-bit values,"
          + " codebook codes, FP16 scales"),
  /** Octave with keys rotated whole, all 3-bit under one scale (rocm_octave.py:11). */
  OCTAVE_K3V3_COMPACT(
      "octave_k3v3_compact",
      "Octave: keys rotated whole, 3-bit, one scale; rotated 3-bit values, codebook codes"),
  /** LMDeploy's {@code --quant-policy 42}: 3-bit Lloyd-Max keys plus a 1-bit QJL residual sign. */
  TURBOQUANT_K4V2_QJL(
      "turboquant_k4v2_qjl",
      "TurboQuant: 3-bit codebook keys with a 1-bit QJL sign and two norms, 2-bit values");

  private final String id;
  private final String description;

  KvFormat(String id, String description) {
    this.id = id;
    this.description = description;
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
    return this == MODEL_DEPENDENT;
  }

  @Override
  public String toString() {
    return id;
  }
}
