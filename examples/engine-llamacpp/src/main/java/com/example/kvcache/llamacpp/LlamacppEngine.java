package com.example.kvcache.llamacpp;

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
import ai.gpustack.kvcache.spi.VersionScheme;
import com.google.auto.service.AutoService;
import java.util.List;
import java.util.Optional;
import java.util.Set;

/**
 * llama.cpp's OpenAI server, {@code llama-server -m <model.gguf>} ({@code server} before b3143). It
 * is not argparse: names match exactly (no prefixes), {@code --cache-type-k=q8_0} is an invalid
 * argument, a short option takes its value as the next argv entry only ({@code -ctk q8_0}), and a
 * bare {@code --} is one more unknown argument. Its own server loop (to b3087) compared names as
 * written; the common parser the server uses from b3087 turns every {@code _} of an argument
 * starting with {@code --} into {@code -} first. Releases are build numbers ({@code b4500}).
 *
 * <p>The KV cache is typed twice, keys and values, each with a GGML type name ({@code bf16}, {@code
 * q8_0}), so the Binding's dtype is rendered on both flags and translated where the Binding's
 * spelling is vLLM's ({@code bfloat16} → {@code bf16}); GGML's own names ({@code bf16}, SGLang's
 * spelling too) are accepted as written, so a domain shared with either reads alike. The GGML block
 * types are formats only llama.cpp stores, so they are engine-defined.
 *
 * <p>llama.cpp has no KV-cache connector (no store, nothing like LMCache or Mooncake up to b6754;
 * slot save/restore writes one file per slot on the server's disk): this module hands the dtype
 * over and attaches nothing else. A quantized {@code --cache-type-v} needs flash attention: from
 * b3063 to b6325 the server exits 1 at startup without {@code -fa} ({@code V cache quantization
 * requires flash_attn}, llama.cpp b4500 src/llama.cpp:9557-9560); from b6325 {@code -fa} defaults
 * to {@code auto}. The module does not pass {@code -fa} for the role: it changes how V is laid out,
 * so a role asks for it in {@code extraArgs} and is warned.
 */
@AutoService(Engine.class)
public final class LlamacppEngine implements Engine {
  static final String ID = "llama.cpp";
  static final String CACHE_TYPE_K = "--cache-type-k";
  static final String CACHE_TYPE_V = "--cache-type-v";
  static final String FLASH_ATTN = "--flash-attn";

  /** GGML's f32: llama.cpp's own, since the library knows no 32-bit KV format. */
  static final KvFormat FLOAT32 = KvFormat.engineDefined(ID, "float32", "IEEE 32-bit float");

  // llama.cpp b4500 ggml/src/ggml-common.h:161-208,399-404: 32 elements per block, FP16 scales
  static final KvFormat Q8_0 =
      KvFormat.engineDefined(ID, "q8_0", "GGML Q8_0: blocks of 32 int8 with an FP16 scale");
  static final KvFormat Q4_0 =
      KvFormat.engineDefined(ID, "q4_0", "GGML Q4_0: blocks of 32 4-bit ints with an FP16 scale");
  static final KvFormat Q4_1 =
      KvFormat.engineDefined(
          ID, "q4_1", "GGML Q4_1: blocks of 32 4-bit ints with an FP16 scale and minimum");
  static final KvFormat Q5_0 =
      KvFormat.engineDefined(ID, "q5_0", "GGML Q5_0: blocks of 32 5-bit ints with an FP16 scale");
  static final KvFormat Q5_1 =
      KvFormat.engineDefined(
          ID, "q5_1", "GGML Q5_1: blocks of 32 5-bit ints with an FP16 scale and minimum");
  static final KvFormat IQ4_NL =
      KvFormat.engineDefined(
          ID,
          "iq4_nl",
          "GGML IQ4_NL: blocks of 32 4-bit indices into a fixed non-linear table, FP16 scale");

  /** The server's own loop, {@code server_params_parse}, before b3087: names exactly as written. */
  private static final ArgvDialect SERVER_LOOP =
      ArgvDialect.builder()
          .parser("llama.cpp server_params_parse (exact names)")
          .inlineValues(false)
          .underscoresAsDashes(false)
          .dottedMembers(false)
          .abbreviations(false)
          .doubleDashEndsOptions(false)
          .attachedShortValues(false)
          .build();

  /** The common parser from b3087: exact names after {@code _} → {@code -} in long options. */
  private static final ArgvDialect COMMON =
      ArgvDialect.builder()
          .parser("llama.cpp common argument parser (exact names, _ read as - after --)")
          .inlineValues(false)
          .underscoresAsDashes(true)
          .dottedMembers(false)
          .abbreviations(false)
          .doubleDashEndsOptions(false)
          .attachedShortValues(false)
          .build();

  private static final SpellingTable SPELLINGS =
      SpellingTable.builder()
          .addEntries(
              DtypeSpellings.builder()
                  .versions(VersionRange.of("b2251", "b2481"))
                  .source(
                      "llama.cpp b2251 examples/server/server.cpp:2393-2398 (-ctk/--cache-type-k,"
                          + " -ctv/--cache-type-v) and common/common.cpp:1243-1266"
                          + " (kv_cache_type_from_str: f32 f16 q8_0 q4_0 q4_1 q5_0 q5_1, exact);"
                          + " q5_0 and q5_1 parse here, but CUDA copies K into them only from"
                          + " b2481 (76aa30a26, #6183, ggml-cuda.cu), so they are listed from there")
                  .addSpellings("float32", "float16", "q8_0", "q4_0", "q4_1")
                  .addSpellings("f32", "f16")
                  .putFormats("float32", FLOAT32)
                  .putFormats("float16", KvFormat.FLOAT16)
                  .putFormats("f32", FLOAT32)
                  .putFormats("f16", KvFormat.FLOAT16)
                  .putFormats("q8_0", Q8_0)
                  .putFormats("q4_0", Q4_0)
                  .putFormats("q4_1", Q4_1)
                  .putEngineValues("float32", "f32")
                  .putEngineValues("float16", "f16")
                  .build(),
              DtypeSpellings.builder()
                  .versions(VersionRange.of("b2481", "b4040"))
                  .source(
                      "llama.cpp b2481 common/common.cpp:1577-1603 (kv_cache_type_from_str: f32"
                          + " f16 q8_0 q4_0 q4_1 iq4_nl q5_0 q5_1, exact and case-sensitive)")
                  .addSpellings("float32", "float16", "q8_0", "q4_0", "q4_1")
                  .addSpellings("f32", "f16")
                  .addSpellings("iq4_nl", "q5_0", "q5_1")
                  .putFormats("float32", FLOAT32)
                  .putFormats("float16", KvFormat.FLOAT16)
                  .putFormats("f32", FLOAT32)
                  .putFormats("f16", KvFormat.FLOAT16)
                  .putFormats("q8_0", Q8_0)
                  .putFormats("q4_0", Q4_0)
                  .putFormats("q4_1", Q4_1)
                  .putFormats("iq4_nl", IQ4_NL)
                  .putFormats("q5_0", Q5_0)
                  .putFormats("q5_1", Q5_1)
                  .putEngineValues("float32", "f32")
                  .putEngineValues("float16", "f16")
                  .build(),
              DtypeSpellings.builder()
                  .versions(VersionRange.of("b4040", null))
                  .source(
                      "llama.cpp b4040 common/common.cpp:999-1028 (kv_cache_type_from_str adds"
                          + " bf16); b4500 common/arg.cpp:170-189 (kv_cache_types: f32 f16 bf16"
                          + " q8_0 q4_0 q4_1 iq4_nl q5_0 q5_1, matched to ggml_type_name exactly,"
                          + " ggml/src/ggml.c:596,602,787); unchanged at b6754"
                          + " common/arg.cpp:1267-1277")
                  .addSpellings("float32", "float16", "bfloat16", "q8_0", "q4_0", "q4_1")
                  .addSpellings("f32", "f16", "bf16")
                  .addSpellings("iq4_nl", "q5_0", "q5_1")
                  .putFormats("float32", FLOAT32)
                  .putFormats("float16", KvFormat.FLOAT16)
                  .putFormats("f32", FLOAT32)
                  .putFormats("f16", KvFormat.FLOAT16)
                  .putFormats("bfloat16", KvFormat.BFLOAT16)
                  .putFormats("bf16", KvFormat.BFLOAT16)
                  .putFormats("q8_0", Q8_0)
                  .putFormats("q4_0", Q4_0)
                  .putFormats("q4_1", Q4_1)
                  .putFormats("iq4_nl", IQ4_NL)
                  .putFormats("q5_0", Q5_0)
                  .putFormats("q5_1", Q5_1)
                  .putEngineValues("float32", "f32")
                  .putEngineValues("float16", "f16")
                  .putEngineValues("bfloat16", "bf16")
                  .build())
          .build();

  private static final List<FlagSpec> SERVER_FLAGS =
      List.of(
          FlagSpec.value("--model").withAliases("-m"),
          FlagSpec.value("--host"),
          FlagSpec.value("--port"),
          FlagSpec.value(CACHE_TYPE_K).withAliases("-ctk"),
          FlagSpec.value(CACHE_TYPE_V).withAliases("-ctv"));

  private static final FlagSpec FLASH_ATTN_SWITCH =
      FlagSpec.toggle(FLASH_ATTN)
          .withAliases("-fa")
          .withKvEffect(
              "stores the V cache untransposed; without flash attention V is kept transposed"
                  + " (llama.cpp b4500 src/llama-kv-cache.cpp:34)");

  private static final List<FlagInventory> INVENTORIES =
      List.of(
          FlagInventory.builder()
              .versions(VersionRange.of("b2251", "b2771"))
              .dialect(SERVER_LOOP)
              .source(
                  "llama.cpp b2251 examples/server/server.cpp:1982-2056,2393-2398"
                      + " (server_params_parse compares arg == \"--port\", \"--host\", \"-m\" ||"
                      + " \"--model\", \"-ctk\" || \"--cache-type-k\", \"-ctv\" ||"
                      + " \"--cache-type-v\"; anything else is \"error: unknown argument\", :2477)")
              .addAllFlags(SERVER_FLAGS)
              .build(),
          FlagInventory.builder()
              .versions(VersionRange.of("b2771", "b3087"))
              .dialect(SERVER_LOOP)
              .source(
                  "llama.cpp b2771 examples/server/server.cpp:2415-2481,2746,2778 (adds -fa ||"
                      + " --flash-attn); llama.cpp:2360 (v_trans = !cparams.flash_attn)")
              .addAllFlags(SERVER_FLAGS)
              .addFlags(FLASH_ATTN_SWITCH)
              .build(),
          FlagInventory.builder()
              .versions(VersionRange.of("b3087", "b6325"))
              .dialect(COMMON)
              .source(
                  "llama.cpp b3087 examples/server/server.cpp:2356 (gpt_params_parse) and"
                      + " common/common.cpp:228-238 ('_' to '-' in arguments starting with --,"
                      + " then exact comparison), :775,936-943,956,1317-1332; b4500"
                      + " common/arg.cpp:245-253 (common_params_parse, the same rules),"
                      + " :656,1232-1256,1580,1775-1788")
              .addAllFlags(SERVER_FLAGS)
              .addFlags(FLASH_ATTN_SWITCH)
              .build(),
          FlagInventory.builder()
              .versions(VersionRange.of("b6325", null))
              .dialect(COMMON)
              .source(
                  "llama.cpp b6325 common/arg.cpp:1548-1550 (-fa/--flash-attn takes"
                      + " on|off|auto); b6754 common/arg.cpp:1344 ('_' to '-'),"
                      + " :1975,2603-2627,3035,3271-3278 (both read in the qualcomm/llama.cpp"
                      + " mirror of upstream tags)")
              .addAllFlags(SERVER_FLAGS)
              .addFlags(
                  FlagSpec.value(FLASH_ATTN)
                      .withAliases("-fa")
                      .withKvEffect(
                          "turns flash attention on, off or auto, and with it whether the V cache"
                              + " is stored transposed (llama.cpp b6325"
                              + " src/llama-model.cpp:18528)"))
              .build());

  @Override
  public String id() {
    return ID;
  }

  @Override
  public String displayName() {
    return "llama.cpp (llama-server)";
  }

  @Override
  public String artifact() {
    return "com.example.kvcache:kvcache-engine-llamacpp";
  }

  @Override
  public String dtypeFlag() {
    return CACHE_TYPE_K;
  }

  /** Keys and values are typed apart; both carry the Binding's dtype. */
  @Override
  public List<String> dtypeFlags() {
    return List.of(CACHE_TYPE_K, CACHE_TYPE_V);
  }

  @Override
  public SpellingTable dtypeSpellings() {
    return SPELLINGS;
  }

  /** {@code b4500} or {@code 4500}: {@code llama-server --version} prints {@code version: 4500}. */
  @Override
  public VersionScheme versionScheme() {
    return VersionScheme.BUILD_NUMBER;
  }

  /** The common parser; each inventory names its own. */
  @Override
  public ArgvDialect dialect() {
    return COMMON;
  }

  @Override
  public List<FlagInventory> flagInventories() {
    return INVENTORIES;
  }

  /**
   * The official images put the binary at {@code /app/llama-server} with {@code /app} as the
   * working directory (llama.cpp b4747 .devops/cuda.Dockerfile:88-94); a role's command replaces
   * the image's entrypoint, so it names the binary by path.
   */
  @Override
  public List<String> baseArgv(String model) {
    return List.of("/app/llama-server", "-m", model);
  }

  /**
   * The CUDA server image of the build ({@code server-cuda-b4500}; the plain {@code server} image
   * is CPU-only), as llama.cpp b4747 .github/workflows/docker.yml:66-95 tags them; the rolling
   * {@code server-cuda} without a version. Whether a given build's image was pushed is not checked.
   */
  @Override
  public Optional<String> defaultImage(Optional<String> version) {
    String image = "ghcr.io/ggml-org/llama.cpp:server-cuda";
    if (version.isEmpty()) {
      return Optional.of(image);
    }
    if (!versionScheme().reads(version.get())) {
      return Optional.empty();
    }
    String build = version.get().trim().replaceFirst("^[bB]", "");
    return Optional.of(image + "-b" + build);
  }

  /** llama.cpp b2251 examples/server/server.cpp:42; b4500 common/common.h:323. */
  @Override
  public int defaultPort() {
    return 8080;
  }

  /** No connector exists to configure: the attachment is the dtype alone. */
  @Override
  public CacheAttachment attachment(AttachmentRequest request) {
    return CacheAttachment.builder().build();
  }

  @Override
  public Set<String> ownedFlags() {
    return Set.of();
  }

  /** No cache client, so no variable is always the operator's. */
  @Override
  public Set<String> ownedEnv() {
    return Set.of();
  }

  /**
   * The dtype's environment spellings, read from b3824 (common/arg.cpp:1216,1224): the command line
   * wins over them (b4500 common/arg.cpp:255-257), but a Pod setting one asks for another type, so
   * they are owned while the dtype is.
   */
  @Override
  public Set<String> dtypeEnv() {
    return Set.of("LLAMA_ARG_CACHE_TYPE_K", "LLAMA_ARG_CACHE_TYPE_V");
  }

  /**
   * {@code server} until b3143, {@code llama-server} from then (examples/server/CMakeLists.txt:1).
   */
  @Override
  public Set<String> launchPrograms() {
    return Set.of("llama-server", "server");
  }

  // No dtypeReports(): /props and /slots carry no KV type (b4500
  // examples/server/server.cpp:3605-3615);
  // only libllama's startup log names it.
}
