package ai.gpustack.kvcache.spi;

import java.util.List;
import java.util.Set;

/** A minimal engine for registry and rendering tests. */
public class TestEngine implements Engine {
  private final String id;
  private final String[] spellings;

  public TestEngine() {
    this("test-engine");
  }

  TestEngine(String id, String... spellings) {
    this.id = id;
    this.spellings = spellings.length == 0 ? new String[] {"auto", "fp8"} : spellings;
  }

  @Override
  public String id() {
    return id;
  }

  @Override
  public String artifact() {
    return "example:test-engine";
  }

  @Override
  public SpellingTable dtypeSpellings() {
    return SpellingTable.builder()
        .addEntries(DtypeSpellings.of(null, null, "test", spellings))
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
            .source("test")
            .addFlags(
                FlagSpec.value("--kv-cache-dtype"),
                FlagSpec.value("--host"),
                FlagSpec.value("--port"))
            .build());
  }

  @Override
  public List<String> baseArgv(String model) {
    return List.of("serve", model);
  }

  @Override
  public int defaultPort() {
    return 1;
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
    return Set.of("serve");
  }
}
