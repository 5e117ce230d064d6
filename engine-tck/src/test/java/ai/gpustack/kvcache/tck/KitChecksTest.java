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

/** The kit names what a module declared, what it expected and the method to change. */
class KitChecksTest {
  /**
   * An engine whose 1.x parser lacks --enable-cache, launched as {@code fake serve}; each test
   * changes one declaration the way a module author gets it wrong.
   */
  static class Fake implements Engine {
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
              DtypeSpellings.of(
                  "1.0",
                  null,
                  "test",
                  Map.of("auto", KvFormat.MODEL_DEPENDENT, "bfloat16", KvFormat.BFLOAT16)))
          .build();
    }

    @Override
    public ArgvDialect dialect() {
      return ArgvDialect.argparse();
    }

    List<FlagSpec> common() {
      return List.of(
          FlagSpec.value("--kv-cache-dtype"),
          FlagSpec.value("--host"),
          FlagSpec.value("--port"),
          FlagSpec.value("--store"));
    }

    @Override
    public List<FlagInventory> flagInventories() {
      return List.of(
          FlagInventory.builder()
              .versions(VersionRange.of("1.0", "2.0"))
              .source("test 1.0")
              .addAllFlags(common())
              .build(),
          FlagInventory.builder()
              .versions(VersionRange.of("2.0", null))
              .source("test 2.0")
              .addAllFlags(common())
              .addFlags(FlagSpec.toggle("--enable-cache"))
              .build());
    }

    @Override
    public List<String> baseArgv(String model) {
      return List.of("fake", "serve", model);
    }

    @Override
    public int defaultPort() {
      return 8000;
    }

    @Override
    public CacheAttachment attachment(AttachmentRequest request) {
      CacheAttachment.Builder attachment =
          CacheAttachment.builder().addConnectorArgs("--store", request.clientEndpoint());
      if (request.engineVersion().map(v -> !v.startsWith("1.")).orElse(true)) {
        attachment.addDefaultedArgs(ArgGroup.toggle("--enable-cache"));
      }
      return attachment.build();
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
      return Set.of("fake serve");
    }
  }

  @Test
  void a_consistent_module_passes_every_check() {
    Engine fake = new Fake();
    assertThat(KitChecks.renderedFlagsMissingFromInventories(fake, "bfloat16")).isEmpty();
    assertThat(KitChecks.declaredFlagsMissingFromInventories(fake)).isEmpty();
    assertThat(KitChecks.flagsMissingBetweenRanges(fake)).isEmpty();
    assertThat(KitChecks.namesTheDialectCannotRead(fake)).isEmpty();
    assertThat(KitChecks.dtypeArgsProblems(fake, "bfloat16")).isEmpty();
    assertThat(KitChecks.launchProblems(fake, "m")).isEmpty();
  }

  @Test
  void a_flag_defaulted_before_the_release_that_has_it_is_named_with_its_range_and_method() {
    Engine fake =
        new Fake() {
          @Override
          public CacheAttachment attachment(AttachmentRequest request) {
            return CacheAttachment.builder()
                .addConnectorArgs("--store", request.clientEndpoint())
                .addDefaultedArgs(ArgGroup.toggle("--enable-cache"))
                .build();
          }
        };
    assertThat(KitChecks.renderedFlagsMissingFromInventories(fake, "bfloat16"))
        .hasSize(6)
        .first()
        .isEqualTo(
            "attachment(request).defaultedArgs() renders --enable-cache for a Server role at"
                + " engine version 1.0, but flagInventories() has no --enable-cache for >=1.0 <2.0:"
                + " the engine exits on an unknown flag; render it only when"
                + " request.engineVersion() is a release that has it, or add it to that range's"
                + " inventory if the release does");
  }

  @Test
  void a_base_argv_missing_its_subcommand_is_named_with_the_declared_launches() {
    Engine fake =
        new Fake() {
          @Override
          public List<String> baseArgv(String model) {
            return List.of("fake", model);
          }
        };
    assertThat(KitChecks.launchProblems(fake, "m"))
        .containsExactly(
            "baseArgv(model) is [fake, m], read as the program \"fake\" followed by [m], but"
                + " launchPrograms() names [fake serve]: declare the program with the subcommands"
                + " that start the server (\"lmdeploy serve api_server\"), or make baseArgv(model)"
                + " start with one that is declared");
  }

  @Test
  void a_launch_declared_with_a_path_is_named() {
    Engine fake =
        new Fake() {
          @Override
          public Set<String> launchPrograms() {
            return Set.of("fake serve", "/usr/bin/fake serve");
          }
        };
    assertThat(KitChecks.launchProblems(fake, "m"))
        .singleElement()
        .asString()
        .startsWith("launchPrograms() names \"/usr/bin/fake serve\", which reads as the program");
  }

  @Test
  void an_underscored_name_under_a_dialect_that_reads_underscores_as_dashes_is_named() {
    Engine fake =
        new Fake() {
          @Override
          public ArgvDialect dialect() {
            return ArgvDialect.vllmFlexibleArgparse();
          }

          @Override
          List<FlagSpec> common() {
            List<FlagSpec> flags = new java.util.ArrayList<>(super.common());
            flags.add(FlagSpec.value("--kv_cache_layout"));
            return flags;
          }
        };
    assertThat(KitChecks.namesTheDialectCannotRead(fake))
        .hasSize(2)
        .first()
        .asString()
        .contains("lists --kv_cache_layout")
        .contains("the parser knows it as --kv-cache-layout");
  }

  @Test
  void a_flag_missing_from_one_range_between_two_that_have_it_is_named() {
    Engine fake =
        new Fake() {
          @Override
          public List<FlagInventory> flagInventories() {
            List<FlagInventory> two = super.flagInventories();
            return List.of(
                FlagInventory.builder()
                    .versions(VersionRange.of("0.9", "1.0"))
                    .source("test 0.9")
                    .addAllFlags(common())
                    .addFlags(FlagSpec.value("--kv-cache-layout"))
                    .build(),
                two.get(0),
                FlagInventory.builder()
                    .versions(two.get(1).versions())
                    .source("test 2.0")
                    .addAllFlags(two.get(1).flags())
                    .addFlags(FlagSpec.value("--kv-cache-layout"))
                    .build());
          }
        };
    assertThat(KitChecks.flagsMissingBetweenRanges(fake))
        .singleElement()
        .asString()
        .startsWith(
            "flagInventories() lists --kv-cache-layout for >=0.9 <1.0 and again later, but not"
                + " for >=1.0 <2.0 (source: test 1.0)");
  }

  @Test
  void dtype_args_that_skip_a_declared_dtype_flag_are_named() {
    Engine fake =
        new Fake() {
          @Override
          public List<String> dtypeFlags() {
            return List.of("--kv-cache-dtype", "--store");
          }

          @Override
          public List<String> dtypeArgs(String dtype) {
            return List.of("--kv-cache-dtype", dtype);
          }
        };
    assertThat(KitChecks.dtypeArgsProblems(fake, "bfloat16"))
        .singleElement()
        .asString()
        .startsWith(
            "dtypeArgs(bfloat16) renders [--kv-cache-dtype, bfloat16], but dtypeFlags() is"
                + " [--kv-cache-dtype, --store]");
  }

  @Test
  void a_dtype_flag_missing_from_an_inventory_is_named_with_the_method() {
    Engine fake =
        new Fake() {
          @Override
          public List<String> dtypeFlags() {
            return List.of("--kv-cache-dtype", "--cache-type-v");
          }
        };
    assertThat(KitChecks.declaredFlagsMissingFromInventories(fake))
        .hasSize(2)
        .first()
        .isEqualTo(
            "dtypeFlags() names --cache-type-v, but flagInventories() has no --cache-type-v for"
                + " >=1.0 <2.0 (source: test 1.0): add it to that inventory, or, if that release"
                + " lacks it, stop declaring it there");
  }
}
