package ai.gpustack.kvcache.tck;

import static org.assertj.core.api.Assertions.assertThat;

import ai.gpustack.kvcache.api.KvFormat;
import ai.gpustack.kvcache.spi.DtypeReport;
import ai.gpustack.kvcache.spi.DtypeSpellings;
import ai.gpustack.kvcache.spi.Engine;
import ai.gpustack.kvcache.spi.FlagInventory;
import ai.gpustack.kvcache.spi.FlagSpec;
import ai.gpustack.kvcache.spi.SpellingTable;
import ai.gpustack.kvcache.spi.VersionRange;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import org.junit.jupiter.api.Test;

/** The release-facts checks name the release, the data file, the spelling or flag and the fix. */
class ReleaseFactsChecksTest {
  private static final String FILE = "release-facts-fake.json";
  private static final ReleaseFacts FACTS = ReleaseFacts.read(ReleaseFactsChecksTest.class, FILE);

  /** {@link KitChecksTest.Fake} with the rows its release-facts file supports, sourced. */
  static class Sourced extends KitChecksTest.Fake {
    Map<String, KvFormat> newer() {
      return Map.of("auto", KvFormat.MODEL_DEPENDENT, "bfloat16", KvFormat.BFLOAT16);
    }

    @Override
    public SpellingTable dtypeSpellings() {
      return SpellingTable.builder()
          .addEntries(
              DtypeSpellings.of(
                  "1.0",
                  "2.0",
                  "fake 1.0 sdist: fake/args.py:10",
                  Map.of("auto", KvFormat.MODEL_DEPENDENT, "bfloat16", KvFormat.BFLOAT16)),
              DtypeSpellings.of(
                  "2.0",
                  null,
                  "fake 2.0 sdist: fake/args.py:11; fp8 is refused at startup (fake/cache.py:30)",
                  newer()))
          .build();
    }

    List<FlagSpec> newFlags() {
      return List.of(
          FlagSpec.toggle("--enable-cache"),
          FlagSpec.value("--config").withKvEffect("reads arguments from a file"));
    }

    @Override
    public List<FlagInventory> flagInventories() {
      List<FlagSpec> old =
          List.of(
              FlagSpec.toggle("--help"),
              FlagSpec.value("--host"),
              FlagSpec.value("--port"),
              FlagSpec.value("--kv-cache-dtype"),
              FlagSpec.value("--store"));
      return List.of(
          FlagInventory.builder()
              .versions(VersionRange.of("1.0", "2.0"))
              .source("fake 1.0 sdist: fake/args.py:9")
              .addAllFlags(old)
              .build(),
          FlagInventory.builder()
              .versions(VersionRange.of("2.0", null))
              .source("fake 2.0 sdist: fake/args.py:13")
              .addAllFlags(old)
              .addAllFlags(newFlags())
              .build());
    }

    @Override
    public List<DtypeReport> dtypeReports() {
      return List.of(
          new DtypeReport() {
            @Override
            public VersionRange versions() {
              return VersionRange.of("1.0", null);
            }

            @Override
            public String source() {
              return "fake 1.0 sdist: fake/server.py:20 (GET /info)";
            }

            @Override
            public String path() {
              return "/info";
            }

            @Override
            public Optional<String> read(String body) {
              return Optional.empty();
            }

            @Override
            public String sample(String spelling) {
              return "{\"kv_cache_dtype\":\"" + spelling + "\"}";
            }

            @Override
            public List<ReportFixture> fixtures() {
              return List.of();
            }
          });
    }
  }

  @Test
  void a_module_whose_tables_match_its_releases_passes_every_check() {
    Engine fake = new Sourced();
    assertThat(ReleaseFactsChecks.fileProblems(FACTS)).isEmpty();
    assertThat(ReleaseFactsChecks.spellingProblems(fake, FACTS)).isEmpty();
    assertThat(ReleaseFactsChecks.formatProblems(fake, FACTS)).isEmpty();
    assertThat(ReleaseFactsChecks.inventoryProblems(fake, FACTS)).isEmpty();
    assertThat(ReleaseFactsChecks.kvFlagProblems(fake, FACTS, Map.of())).isEmpty();
    assertThat(ReleaseFactsChecks.reportProblems(fake, FACTS)).isEmpty();
    assertThat(ReleaseFactsChecks.guessedSources(fake)).isEmpty();
  }

  @Test
  void a_spelling_the_release_refuses_at_startup_is_named_with_the_line_that_refuses_it() {
    Engine fake =
        new Sourced() {
          @Override
          Map<String, KvFormat> newer() {
            return Map.of(
                "auto",
                KvFormat.MODEL_DEPENDENT,
                "bfloat16",
                KvFormat.BFLOAT16,
                "fp8",
                KvFormat.FLOAT8_E4M3FN);
          }
        };
    assertThat(ReleaseFactsChecks.spellingProblems(fake, FACTS))
        .containsExactly(
            "fake 2.0 (fake-2.0.tar.gz), release-facts-fake.json: dtypeSpellings() for >=2.0"
                + " accepts fp8, which the release lists but refuses once it starts"
                + " (fake/cache.py:30: \"fp8 is deprecated\"): its Pods would fail. Remove fp8"
                + " from that row, or end the row before 2.0");
  }

  @Test
  void a_spelling_the_row_lacks_is_an_over_refusal_named_with_the_release_line() {
    Engine fake =
        new Sourced() {
          @Override
          Map<String, KvFormat> newer() {
            return Map.of("auto", KvFormat.MODEL_DEPENDENT);
          }
        };
    assertThat(ReleaseFactsChecks.spellingProblems(fake, FACTS))
        .containsExactly(
            "fake 2.0 (fake-2.0.tar.gz), release-facts-fake.json: --kv-cache-dtype accepts"
                + " bfloat16 (fake/args.py:11), but dtypeSpellings() for >=2.0 does not: an"
                + " over-refusal. Add bfloat16 to that row, or start a row at 2.0");
  }

  @Test
  void a_flag_listed_before_its_release_and_the_prefix_it_makes_ambiguous_are_named() {
    Engine fake =
        new Sourced() {
          @Override
          List<FlagSpec> newFlags() {
            return List.of(FlagSpec.toggle("--enable-cache"), FlagSpec.value("--kv-cache-size"));
          }
        };
    assertThat(ReleaseFactsChecks.inventoryProblems(fake, FACTS))
        .contains(
            "fake 2.0 (fake-2.0.tar.gz), release-facts-fake.json: flagInventories() for >=2.0"
                + " lists --kv-cache-size, which the release does not have: remove it there, or"
                + " start its range at the release that adds it",
            "fake 2.0 (fake-2.0.tar.gz), release-facts-fake.json: --k reads as"
                + " --kv-cache-dtype in the release, but flagInventories() for >=2.0 finds it"
                + " ambiguous (--kv-cache-dtype, --kv-cache-size); it lists --kv-cache-size, which the"
                + " release lacks");
    assertThat(ReleaseFactsChecks.kvFlagProblems(fake, FACTS, Map.of()))
        .containsExactly(
            "fake 2.0 (fake-2.0.tar.gz), release-facts-fake.json: the release has --config"
                + " (fake/args.py:14), which changes the KV format, but flagInventories() for"
                + " >=2.0 does not mark it (FlagSpec.withKvEffect)");
  }

  @Test
  void a_source_resting_on_a_guess_is_named() {
    Engine fake =
        new Sourced() {
          @Override
          public SpellingTable dtypeSpellings() {
            return SpellingTable.builder()
                .addEntries(
                    DtypeSpellings.of(
                        "1.0",
                        null,
                        "a PR merged in May; first release inferred from its date",
                        Map.of("auto", KvFormat.MODEL_DEPENDENT, "bfloat16", KvFormat.BFLOAT16)))
                .build();
          }
        };
    assertThat(ReleaseFactsChecks.guessedSources(fake))
        .singleElement()
        .asString()
        .startsWith("the source of dtypeSpellings() for >=1.0 says \"inferred\"");
    assertThat(ReleaseFactsChecks.spellingProblems(fake, FACTS))
        .anySatisfy(
            p ->
                assertThat(p)
                    .startsWith(
                        "dtypeSpellings() for >=1.0 rests on fake/args.py in some of its releases"));
  }

  @Test
  void an_inventory_edited_by_hand_fails_its_replay() throws Exception {
    ObjectMapper json = new ObjectMapper();
    ObjectNode root =
        (ObjectNode) json.readTree(ReleaseFactsChecksTest.class.getResourceAsStream(FILE));
    ((ObjectNode) root.path("releases").get(3).path("inventory")).put("count", 9);
    assertThat(ReleaseFactsChecks.fileProblems(ReleaseFacts.parse(FILE, root)))
        .containsExactly(
            "release-facts-fake.json: the inventory of 2.0 replays to 7 flags, but the file says"
                + " 9: the file was edited by hand; rerun tools/engine-facts/extract.py");
  }
}
