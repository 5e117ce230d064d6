package ai.gpustack.kvcache.tck;

import static org.assertj.core.api.Assertions.assertThat;

import ai.gpustack.kvcache.api.KvFormat;
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
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.junit.jupiter.api.Test;

/** The kit names the flag, the version range and the method a module got wrong. */
class KitChecksTest {
  /** An engine that defaults --enable-cache on every version, though 1.0 did not have it. */
  static final class DefaultsTooEarly implements Engine {
    @Override
    public String id() {
      return "Fake";
    }

    @Override
    public String artifact() {
      return "example:fake";
    }

    @Override
    public SpellingTable dtypeSpellings() {
      return SpellingTable.builder()
          .addEntries(
              DtypeSpellings.of("1.0", null, "test", Map.of("auto", KvFormat.MODEL_DEPENDENT)))
          .build();
    }

    @Override
    public ArgvDialect dialect() {
      return ArgvDialect.argparse();
    }

    @Override
    public List<FlagInventory> flagInventories() {
      List<FlagSpec> common =
          List.of(
              FlagSpec.value("--kv-cache-dtype"),
              FlagSpec.value("--host"),
              FlagSpec.value("--port"),
              FlagSpec.value("--store"));
      return List.of(
          FlagInventory.builder()
              .versions(VersionRange.of("1.0", "2.0"))
              .source("test")
              .addAllFlags(common)
              .build(),
          FlagInventory.builder()
              .versions(VersionRange.of("2.0", null))
              .source("test")
              .addAllFlags(common)
              .addFlags(FlagSpec.toggle("--enable-cache"))
              .build());
    }

    @Override
    public List<String> baseArgv(String model) {
      return List.of("fake", model);
    }

    @Override
    public int defaultPort() {
      return 8000;
    }

    @Override
    public CacheAttachment attachment(AttachmentRequest request) {
      return CacheAttachment.builder()
          .addConnectorArgs("--store", request.clientEndpoint())
          .addDefaultedArgs(ArgGroup.toggle("--enable-cache"))
          .build();
    }

    @Override
    public Set<String> ownedFlags() {
      return Set.of("--store");
    }

    @Override
    public Set<String> ownedEnv() {
      return Set.of();
    }

    @Override
    public Set<String> launchPrograms() {
      return Set.of("fake");
    }
  }

  @Test
  void a_flag_defaulted_before_the_release_that_has_it_is_named_with_its_range_and_method() {
    assertThat(KitChecks.renderedFlagsMissingFromInventories(new DefaultsTooEarly(), "auto"))
        .containsExactly(
            "--enable-cache, rendered by attachment(request).defaultedArgs() for a Server role,"
                + " is not in flagInventories() for >=1.0 <2.0",
            "--enable-cache, rendered by attachment(request).defaultedArgs() for a Prefill role,"
                + " is not in flagInventories() for >=1.0 <2.0",
            "--enable-cache, rendered by attachment(request).defaultedArgs() for a Decode role,"
                + " is not in flagInventories() for >=1.0 <2.0");
  }
}
