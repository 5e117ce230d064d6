package ai.gpustack.kvcache.tck;

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
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * An engine that types its keys and values with two flags, the way llama.cpp's {@code
 * --cache-type-k} and {@code --cache-type-v} do, parsed by argparse so the differential test runs
 * on it too: the kit must hold for a dtype rendered as four argv entries and owned as two flags.
 */
public final class KeyValueTypesEngine implements Engine {
  static final String KEYS = "--cache-type-k";
  static final String VALUES = "--cache-type-v";

  @Override
  public String id() {
    return "key-value-types";
  }

  @Override
  public String artifact() {
    return "ai.gpustack.kvcache:kvcache-engine-tck";
  }

  @Override
  public String dtypeFlag() {
    return KEYS;
  }

  @Override
  public List<String> dtypeFlags() {
    return List.of(KEYS, VALUES);
  }

  @Override
  public SpellingTable dtypeSpellings() {
    return SpellingTable.builder()
        .addEntries(
            DtypeSpellings.of(
                null,
                null,
                "a test engine",
                Map.of("f16", KvFormat.FLOAT16, "bf16", KvFormat.BFLOAT16)))
        .build();
  }

  @Override
  public ArgvDialect dialect() {
    return ArgvDialect.argparse();
  }

  @Override
  public List<FlagInventory> flagInventories() {
    return List.of(
        FlagInventory.builder()
            .versions(VersionRange.any())
            .source("a test engine")
            .addFlags(
                FlagSpec.value(KEYS),
                FlagSpec.value(VALUES),
                FlagSpec.value("--cache-type-k-draft"),
                FlagSpec.value("--host"),
                FlagSpec.value("--port"),
                FlagSpec.optionalList("--lora"))
            .build());
  }

  @Override
  public List<String> baseArgv(String model) {
    return List.of("kv-server", "--model", model);
  }

  @Override
  public int defaultPort() {
    return 8080;
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
    return Set.of("kv-server");
  }
}
