package ai.gpustack.kvcache.tck;

import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.platform.engine.discovery.DiscoverySelectors.selectClass;

import ai.gpustack.kvcache.api.KvFormat;
import ai.gpustack.kvcache.spi.AttachmentRequest;
import ai.gpustack.kvcache.spi.CacheAttachment;
import ai.gpustack.kvcache.spi.DtypeReport;
import ai.gpustack.kvcache.spi.DtypeSpellings;
import ai.gpustack.kvcache.spi.Engine;
import ai.gpustack.kvcache.spi.FlagSpec;
import ai.gpustack.kvcache.spi.SpellingTable;
import ai.gpustack.kvcache.spi.VersionScheme;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import org.junit.jupiter.api.Test;
import org.junit.platform.launcher.core.LauncherDiscoveryRequestBuilder;
import org.junit.platform.launcher.core.LauncherFactory;
import org.junit.platform.launcher.listeners.SummaryGeneratingListener;
import org.junit.platform.launcher.listeners.TestExecutionSummary;

/**
 * Mistakes a module author makes, each planted in {@link LlamaLikeEngine}: the kit fails each,
 * naming what was declared, what was expected and the method to change.
 */
class PlantedMistakesTest {
  @Test
  void the_truthful_engine_passes_every_check() {
    Engine engine = new LlamaLikeEngine();
    List<String> all = new ArrayList<>();
    all.addAll(ValueChecks.renderedValueProblems(engine, "m"));
    all.addAll(ValueChecks.sharedValueFormatProblems(engine));
    all.addAll(KitChecks.spellingRangesBeyondInventories(engine));
    all.addAll(KitChecks.renderedFlagsMissingFromInventories(engine, "f16"));
    all.addAll(KitChecks.unownedTwinsOfDtypeFlags(engine));
    all.addAll(KitChecks.rangesOutsideTheScheme(engine));
    all.addAll(KitChecks.reportsWithoutFixtures(engine));
    all.addAll(KitChecks.fixturesThatDoNotReadAsTheySay(engine));
    assertThat(all).isEmpty();
  }

  @Test
  void accepting_fp8_and_rendering_q8_0_is_named() {
    Engine engine =
        new LlamaLikeEngine() {
          @Override
          public SpellingTable dtypeSpellings() {
            return withRow(
                DtypeSpellings.of(
                    "b4500",
                    null,
                    "test b4500",
                    Map.of("f16", KvFormat.FLOAT16, "fp8", KvFormat.FLOAT8_E4M3FN)));
          }

          @Override
          public List<String> dtypeArgs(String dtype) {
            return super.dtypeArgs(dtype.equals("fp8") ? "q8_0" : dtype);
          }
        };
    assertThat(ValueChecks.renderedValueProblems(engine, "m"))
        .hasSize(3)
        .first()
        .isEqualTo(
            "dtypeArgs(engineValue(fp8, version)) at engine version b4500 hands --cache-type-k q8_0"
                + " for the Binding's fp8, but dtypeSpellings() for >=b4500 declares the engine"
                + " value fp8 (the spelling itself: engineValues() does not translate it),"
                + " once on every dtype flag: render engineValue(dtype) unchanged in"
                + " dtypeArgs(dtype), and translate in DtypeSpellings.engineValues() (argv:"
                + " [--cache-type-k, q8_0, --cache-type-v, q8_0])");
  }

  @Test
  void a_typo_in_the_rendered_value_is_named() {
    Engine engine =
        new LlamaLikeEngine() {
          @Override
          public String engineValue(String dtype, Optional<String> version) {
            return dtype.equals("bfloat16") ? "bfl16" : super.engineValue(dtype, version);
          }
        };
    assertThat(ValueChecks.renderedValueProblems(engine, "m"))
        .hasSize(4)
        .first()
        .isEqualTo(
            "engineValue(bfloat16, b4500) is bfl16, but dtypeSpellings() for >=b4500 declares the"
                + " engine value bf16 (engineValues(): bfloat16 → bf16): translate in"
                + " DtypeSpellings.engineValues() and leave engineValue(dtype, version) to the"
                + " table");
  }

  @Test
  void a_typo_rendered_by_dtype_args_is_named() {
    Engine engine =
        new LlamaLikeEngine() {
          @Override
          public List<String> dtypeArgs(String dtype) {
            return super.dtypeArgs(dtype.equals("bf16") ? "bfl16" : dtype);
          }
        };
    assertThat(ValueChecks.renderedValueProblems(engine, "m"))
        .hasSize(3)
        .first()
        .isEqualTo(
            "dtypeArgs(engineValue(bfloat16, version)) at engine version b4500 hands"
                + " --cache-type-k bfl16 for the Binding's bfloat16, but dtypeSpellings() for"
                + " >=b4500 declares the engine value bf16 (engineValues(): bfloat16 → bf16),"
                + " once on every dtype flag: render engineValue(dtype) unchanged in"
                + " dtypeArgs(dtype), and translate in DtypeSpellings.engineValues() (argv:"
                + " [--cache-type-k, bfl16, --cache-type-v, bfl16])");
  }

  @Test
  void two_spellings_handed_over_as_one_value_with_two_formats_are_named() {
    Engine engine =
        new LlamaLikeEngine() {
          @Override
          public SpellingTable dtypeSpellings() {
            return withRow(
                DtypeSpellings.of(
                        "b4500",
                        null,
                        "test b4500",
                        Map.of("bfloat16", KvFormat.BFLOAT16, "bf16", KvFormat.FLOAT16))
                    .withEngineValues(Map.of("bfloat16", "bf16")));
          }
        };
    assertThat(ValueChecks.sharedValueFormatProblems(engine))
        .containsExactly(
            "dtypeSpellings() for >=b4500 hands the engine bf16 for each of bf16, bfloat16"
                + " (engineValues(): bfloat16 → bf16), but maps bf16 to float16 and bfloat16 to"
                + " bfloat16: the engine stores one format for one value; map them alike in"
                + " formats() (or PlatformFormats), or translate each spelling to its own value in"
                + " engineValues()");
  }

  @Test
  void a_spelling_table_starting_before_its_flags_exist_is_named() {
    Engine engine =
        new LlamaLikeEngine() {
          @Override
          public SpellingTable dtypeSpellings() {
            List<DtypeSpellings> rows = new ArrayList<>(super.dtypeSpellings().entries());
            rows.set(
                0,
                DtypeSpellings.of("b3000", "b4500", "test b3000", Map.of("f16", KvFormat.FLOAT16)));
            return SpellingTable.builder().addAllEntries(rows).build();
          }
        };
    assertThat(KitChecks.spellingRangesBeyondInventories(engine))
        .containsExactly(
            "dtypeSpellings() for >=b3000 <b4500 covers engine version b3000, but no range of"
                + " flagInventories() holds it (they cover >=b4000 <b4500, >=b4500), so nothing"
                + " says the engine there has --cache-type-k and --cache-type-v: start the"
                + " spelling row at the first release whose inventory lists every flag of"
                + " dtypeFlags(), or add an inventory for that release if it has them");
  }

  @Test
  void a_flag_defaulted_one_build_before_it_exists_is_named() {
    Engine engine =
        new LlamaLikeEngine() {
          @Override
          String unifiedFrom() {
            return "b4499";
          }
        };
    assertThat(KitChecks.renderedFlagsMissingFromInventories(engine, "f16"))
        .hasSize(3)
        .first()
        .isEqualTo(
            "attachment(request).defaultedArgs() renders --kv-unified for a Server role at engine"
                + " version b4499, but flagInventories() has no --kv-unified for >=b4000 <b4500:"
                + " the engine exits on an unknown flag; render it only when"
                + " request.engineVersion() is a release that has it, or add it to that range's"
                + " inventory if the release does");
  }

  @Test
  void a_connector_flag_with_an_inline_value_the_dialect_refuses_is_named() {
    Engine engine =
        new LlamaLikeEngine() {
          @Override
          public CacheAttachment attachment(AttachmentRequest request) {
            return CacheAttachment.builder()
                .addConnectorArgs("--kv-store=" + request.clientEndpoint())
                .build();
          }
        };
    assertThat(KitChecks.renderedFlagsMissingFromInventories(engine, "f16"))
        .first()
        .isEqualTo(
            "attachment(request).connectorArgs() renders --kv-store=mooncake-master.kv.svc:50051"
                + " for a Server role at engine version b4000, but the dialect for >=b4000 <b4500"
                + " reads no inline values (inlineValues() is false), so the engine refuses the"
                + " whole token: render the flag and its value as two entries");
  }

  @Test
  void dropping_v_from_both_render_and_dtype_flags_is_named() {
    Engine engine =
        new LlamaLikeEngine() {
          @Override
          public List<String> dtypeFlags() {
            return List.of(KEYS);
          }
        };
    assertThat(KitChecks.unownedTwinsOfDtypeFlags(engine))
        .containsExactly(
            "flagInventories() for >=b4000 <b4500 lists --cache-type-v (--cache-type-v, -ctv),"
                + " the twin of dtype flag --cache-type-k, but dtypeFlags() is [--cache-type-k]:"
                + " the two type the keys and values of one cache, so a workload passing"
                + " --cache-type-v runs another type beside the Binding's; list both in"
                + " dtypeFlags() (dtypeArgs(dtype) then renders both and both are owned)",
            "flagInventories() for >=b4500 lists --cache-type-v (--cache-type-v, -ctv), the twin"
                + " of dtype flag --cache-type-k, but dtypeFlags() is [--cache-type-k]: the two"
                + " type the keys and values of one cache, so a workload passing --cache-type-v"
                + " runs another type beside the Binding's; list both in dtypeFlags()"
                + " (dtypeArgs(dtype) then renders both and both are owned)");
  }

  @Test
  void a_report_without_fixtures_is_named() {
    Engine engine =
        new LlamaLikeEngine() {
          @Override
          public List<DtypeReport> dtypeReports() {
            return List.of(
                new PropsReport() {
                  @Override
                  public List<ReportFixture> fixtures() {
                    return List.of();
                  }
                });
          }
        };
    assertThat(KitChecks.reportsWithoutFixtures(engine))
        .containsExactly(
            "dtypeReports() for >=b4500 reads /props, but its fixtures() hold none: add a"
                + " ReportFixture with an answer captured from the real engine (curl of /props at"
                + " a release of the range, shipped as a resource in package"
                + " ai.gpustack.kvcache.tck) and the spelling it reports, so read(body) is checked"
                + " against the engine's answer and not only against sample(spelling)");
  }

  @Test
  void a_report_that_reads_only_its_own_samples_is_named_by_its_fixture() {
    Engine engine =
        new LlamaLikeEngine() {
          @Override
          public List<DtypeReport> dtypeReports() {
            return List.of(
                new PropsReport() {
                  @Override
                  public Optional<String> read(String body) {
                    return body.startsWith("build_info: b4500\n")
                        ? super.read(body)
                        : Optional.empty();
                  }
                });
          }
        };
    assertThat(KitChecks.fixturesThatDoNotReadAsTheySay(engine))
        .containsExactly(
            "fixtures() of dtypeReports() for >=b4500 name reports/props-b4589.txt, which says"
                + " it reports bf16, but read(body) gives nothing: make read(body) read the"
                + " engine's own answer, or correct the fixture's reports value if the capture"
                + " says otherwise");
  }

  @Test
  void build_number_ranges_under_the_default_scheme_are_named() {
    Engine engine =
        new LlamaLikeEngine() {
          @Override
          public VersionScheme versionScheme() {
            return VersionScheme.PEP440;
          }
        };
    assertThat(KitChecks.rangesOutsideTheScheme(engine))
        .hasSize(7)
        .first()
        .isEqualTo(
            "dtypeSpellings() for >=b4000 <b4500 is bounded by b4000, which is not a release"
                + " number such as 0.11.0 (PEP 440), the scheme versionScheme() declares"
                + " (PEP440): write the range in that scheme, or return the scheme the engine"
                + " numbers its releases in from versionScheme()");
  }

  @Test
  void an_engine_that_throws_while_its_class_loads_fails_once_naming_the_cause() {
    SummaryGeneratingListener listener = new SummaryGeneratingListener();
    LauncherFactory.create()
        .execute(
            LauncherDiscoveryRequestBuilder.request()
                .selectors(selectClass(BrokenEngineContract.class))
                .build(),
            listener);
    TestExecutionSummary summary = listener.getSummary();
    assertThat(summary.getTotalFailureCount()).as("one failure, the_engine_builds").isEqualTo(1);
    assertThat(summary.getFailures().get(0).getException())
        .hasMessage(
            "engine() threw while building the engine under test"
                + " (ai.gpustack.kvcache.tck.PlantedMistakesTest$BrokenEngineContract):"
                + " IllegalArgumentException: flag \"-ctk\" is not a canonical long option such as"
                + " --kv-cache-dtype; declare a short option as an alias:"
                + " FlagSpec.value(\"--cache-type-k\").withAliases(\"-ctk\"). The engine's"
                + " declarations are checked as they are built, so one built when its class loads"
                + " (a static FlagSpec, DtypeSpellings or FlagInventory) fails the whole class:"
                + " fix the declaration the message names. The other contract tests are skipped"
                + " until engine() returns.");
    assertThat(summary.getTestsAbortedCount())
        .as("every other contract test skipped")
        .isEqualTo(summary.getTestsStartedCount() - 1)
        .isGreaterThan(30);
  }

  /** A module whose flag is declared at class load with a short name as its canonical one. */
  static final class BrokenEngine extends LlamaLikeEngine {
    static final FlagSpec SHORT = FlagSpec.value("-ctk");
  }

  /** Run only by the launcher above: surefire does not pick up nested classes. */
  static final class BrokenEngineContract extends EngineContractTest {
    @Override
    protected Engine engine() {
      return new BrokenEngine();
    }
  }

  private static SpellingTable withRow(DtypeSpellings newest) {
    return SpellingTable.builder()
        .addEntries(new LlamaLikeEngine().dtypeSpellings().entries().get(0), newest)
        .build();
  }
}
