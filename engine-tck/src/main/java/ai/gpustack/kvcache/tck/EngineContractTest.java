package ai.gpustack.kvcache.tck;

import static org.assertj.core.api.Assertions.assertThat;

import ai.gpustack.kvcache.api.Dtype;
import ai.gpustack.kvcache.spi.ArgvDialect;
import ai.gpustack.kvcache.spi.AttachmentRequest;
import ai.gpustack.kvcache.spi.DtypeReport;
import ai.gpustack.kvcache.spi.DtypeSpellings;
import ai.gpustack.kvcache.spi.Engine;
import ai.gpustack.kvcache.spi.EngineRegistry;
import ai.gpustack.kvcache.spi.FlagInventory;
import ai.gpustack.kvcache.spi.FlagReader;
import ai.gpustack.kvcache.spi.FlagSpec;
import ai.gpustack.kvcache.spi.Versioned;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;
import java.util.ServiceLoader;
import java.util.concurrent.ConcurrentHashMap;
import java.util.stream.Collectors;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Nested;
import org.junit.jupiter.api.Test;

/**
 * The contract every engine module passes. An engine's test extends this class and returns its
 * engine from {@link #engine()}; every group below then runs against it, and none can be switched
 * off. Groups are named by the sentence they hold true.
 *
 * <pre>{@code
 * class MyEngineTest extends EngineContractTest {
 *   @Override
 *   protected Engine engine() {
 *     return new MyEngine();
 *   }
 * }
 * }</pre>
 */
public abstract class EngineContractTest {
  /** Each concrete test class's engine, built once: its nested groups share it. */
  private static final Map<Class<?>, Built> BUILT = new ConcurrentHashMap<>();

  /** The engine a test class built, or what building it threw. */
  private record Built(Engine engine, Throwable failure) {}

  /** The engine under test; a fresh or shared instance, either works. */
  protected abstract Engine engine();

  /**
   * A model name the engine can be rendered with; override when the engine's base argv needs a
   * particular shape (a path, a file name).
   */
  protected String sampleModel() {
    return "example-org/example-model";
  }

  /**
   * The extra args a sample role passes, checked to come after the dtype args and to survive
   * rendering unchanged. They need not be flags the engine knows (nothing parses them here) but
   * must not name a dtype, owned or listen flag; override when these collide with one of yours.
   */
  protected List<String> sampleExtraArgs() {
    return List.of("--max-num-seqs", "8");
  }

  /**
   * The engine under test, built once per test class on first use: a module whose declarations
   * throw while its class loads (an invalid FlagSpec in a static field) fails {@link
   * #the_engine_builds} once, naming the cause, and every other test is skipped instead of failing
   * with the same error.
   */
  private Engine subject() {
    Built built = built();
    if (built.failure() != null) {
      Assumptions.abort(
          "engine() threw while building the engine under test; see the_engine_builds: "
              + rootCause(built.failure()));
    }
    return built.engine();
  }

  private Built built() {
    return BUILT.computeIfAbsent(getClass(), k -> build());
  }

  private Built build() {
    try {
      return new Built(engine(), null);
    } catch (RuntimeException | LinkageError e) {
      // reported once by the_engine_builds; a bug in the module, named with its cause
      return new Built(null, e);
    }
  }

  private static String rootCause(Throwable failure) {
    Throwable root = failure;
    while (root.getCause() != null && root.getCause() != root) {
      root = root.getCause();
    }
    return root.getClass().getSimpleName() + ": " + root.getMessage();
  }

  @Test
  void the_engine_builds() {
    Built built = built();
    if (built.failure() != null) {
      throw new AssertionError(
          "engine() threw while building the engine under test ("
              + getClass().getName()
              + "): "
              + rootCause(built.failure())
              + ". The engine's declarations are checked as they are built, so one built when"
              + " its class loads (a static FlagSpec, DtypeSpellings or FlagInventory) fails"
              + " the whole class: fix the declaration the message names. The other contract"
              + " tests are skipped until engine() returns.",
          built.failure());
    }
  }

  /** The sample role, attachment and readers, built for the engine under test. */
  private ContractSamples samples() {
    return new ContractSamples(subject(), sampleModel());
  }

  @Nested
  @DisplayName("its id is usable by people and by the registry")
  class Identity {
    @Test
    void the_id_starts_with_a_letter_and_holds_no_spaces() {
      assertThat(subject().id())
          .as("id() must start with a letter and hold letters, digits, . _ or - only")
          .matches("[A-Za-z][A-Za-z0-9._-]*");
      assertThat(subject().displayName()).as("displayName() must not be blank").isNotBlank();
    }

    @Test
    void the_artifact_is_maven_coordinates() {
      assertThat(subject().artifact())
          .as("artifact() must be the module's Maven coordinates, group:artifact")
          .matches("[A-Za-z0-9_.-]+:[A-Za-z0-9_.-]+");
    }

    @Test
    void the_registry_resolves_it_whatever_the_case() {
      EngineRegistry registry = EngineRegistry.of(List.of(subject()));
      String id = subject().id();
      for (String written : List.of(id.toLowerCase(Locale.ROOT), id.toUpperCase(Locale.ROOT))) {
        assertThat(registry.resolve(written).id())
            .as(
                "the registry resolves %s to id() %s; id() must be unique whatever the case",
                written, id)
            .isEqualTo(id);
      }
    }
  }

  @Nested
  @DisplayName("what it renders starts the way the injection launch check expects")
  class Launches {
    @Test
    void the_base_argv_starts_with_a_declared_launch_subcommands_included() {
      assertThat(KitChecks.launchProblems(subject(), sampleModel())).isEmpty();
    }
  }

  @Nested
  @DisplayName("its spelling table is sourced, lowercase and covers every future version")
  class Spellings {
    @Test
    void every_entry_names_where_it_was_read() {
      for (DtypeSpellings entry : subject().dtypeSpellings().entries()) {
        assertThat(entry.source())
            .as(
                "dtypeSpellings() for %s must name the upstream file it was read from",
                entry.versions())
            .isNotBlank();
      }
    }

    @Test
    void every_spelling_is_a_valid_dtype() {
      for (DtypeSpellings entry : subject().dtypeSpellings().entries()) {
        for (String spelling : entry.spellings()) {
          assertThat(Dtype.of(spelling).value())
              .as(
                  "dtypeSpellings() for %s accepts %s, which a Binding spells otherwise: accept"
                      + " the Binding's spelling and translate it in engineValues()",
                  entry.versions(), spelling)
              .isEqualTo(spelling);
        }
      }
    }

    @Test
    void every_accepted_spelling_maps_to_the_kv_format_it_stores() {
      List<String> unmapped = new ArrayList<>();
      for (DtypeSpellings entry : subject().dtypeSpellings().entries()) {
        for (String spelling : entry.spellings()) {
          if (entry.format(spelling).isEmpty()) {
            unmapped.add(entry.versions() + " " + spelling);
          }
        }
      }
      assertThat(unmapped)
          .as(
              "dtypeSpellings() accepts these spellings without saying the KV format each"
                  + " stores (a module written before formats existed): map each with"
                  + " DtypeSpellings.of(from, until, source, Map.of(spelling, KvFormat...)) or"
                  + " putFormats")
          .isEmpty();
    }

    @Test
    void spellings_handed_to_the_engine_as_one_value_map_to_one_format() {
      assertThat(ValueChecks.sharedValueFormatProblems(subject())).isEmpty();
    }

    @Test
    void auto_where_accepted_leaves_the_cache_at_the_models_dtype() {
      for (DtypeSpellings entry : subject().dtypeSpellings().entries()) {
        entry
            .format(Dtype.AUTO)
            .ifPresent(
                format ->
                    assertThat(format.modelDependent())
                        .as(
                            "dtypeSpellings() maps auto to %s for %s; auto lets the engine pick"
                                + " from the model, so map it to KvFormat.MODEL_DEPENDENT",
                            format, entry.versions())
                        .isTrue());
      }
    }

    @Test
    void some_spelling_names_a_type_so_a_binding_can_declare_one() {
      assertThat(samples().dtype().value())
          .as(
              "every spelling of the newest dtypeSpellings() entry leaves the cache at the model's"
                  + " dtype (maps to KvFormat.MODEL_DEPENDENT), so no Binding can name a type")
          .isNotEqualTo(Dtype.AUTO);
    }

    @Test
    void the_newest_entry_is_open_ended_so_a_newer_build_reads_the_newest_table() {
      assertThat(subject().dtypeSpellings().newest().versions().until())
          .as(
              "the newest dtypeSpellings() entry (%s) must be open-ended, so a release newer"
                  + " than the module reads it",
              subject().dtypeSpellings().newest().versions())
          .isEmpty();
    }

    @Test
    void a_missing_version_reads_the_newest_table() {
      String dtype = samples().dtype().value();
      assertThat(subject().checkDtype(dtype, Optional.empty()).accepted())
          .as(
              "checkDtype(%s, no version) refuses a spelling of the newest dtypeSpellings()"
                  + " entry: leave checkDtype and acceptsDtype to the SPI's defaults",
              dtype)
          .isTrue();
    }

    @Test
    void the_quick_acceptance_answer_agrees_with_the_full_verdict() {
      List<String> spellings = new ArrayList<>(List.of("no_such_dtype", "auto"));
      List<Optional<String>> versions = new ArrayList<>(List.of(Optional.empty()));
      for (DtypeSpellings entry : subject().dtypeSpellings().entries()) {
        spellings.addAll(entry.spellings());
      }
      Boundaries.of(subject()).forEach(v -> versions.add(Optional.of(v)));
      for (Optional<String> version : versions) {
        for (String dtype : spellings) {
          boolean full = subject().checkDtype(dtype, version).accepted();
          assertThat(subject().acceptsDtype(dtype, version))
              .as(
                  "acceptsDtype(%s, %s) disagrees with checkDtype(...).accepted(), which says"
                      + " %s: override neither, or both alike",
                  dtype, version, full)
              .isEqualTo(full);
        }
      }
    }

    @Test
    void a_spelling_outside_the_table_is_rejected_with_what_is_accepted() {
      var verdict = subject().checkDtype("no_such_dtype", Optional.empty());
      assertThat(verdict.accepted())
          .as("checkDtype(no_such_dtype, no version) accepts a spelling no table lists")
          .isFalse();
      assertThat(verdict.spellings())
          .as(
              "checkDtype(no_such_dtype, no version) must offer the newest dtypeSpellings()"
                  + " entry's spellings instead")
          .isEqualTo(subject().dtypeSpellings().newest().spellings());
    }
  }

  @Nested
  @DisplayName(
      "its ranges are written in its version scheme, and every spelling range lies within the"
          + " inventories")
  class Ranges {
    @Test
    void every_range_end_is_a_version_of_the_declared_scheme() {
      assertThat(KitChecks.rangesOutsideTheScheme(subject())).isEmpty();
    }

    @Test
    void every_version_a_spelling_row_covers_has_an_inventory() {
      assertThat(KitChecks.spellingRangesBeyondInventories(subject())).isEmpty();
    }
  }

  @Nested
  @DisplayName("every accepted spelling reaches the engine as the engine value its table declares")
  class EngineValues {
    @Test
    void every_spelling_renders_its_declared_engine_value_on_every_dtype_flag_at_every_boundary() {
      assertThat(ValueChecks.renderedValueProblems(subject(), sampleModel())).isEmpty();
    }
  }

  @Nested
  @DisplayName("a managed role's command carries the Binding's dtype once, before extraArgs")
  class ManagedCommand {
    @Test
    void the_dtype_args_appear_exactly_once() {
      List<String> command = samples().commandWithAttachment(sampleExtraArgs(), true);
      assertThat(Collections.indexOfSubList(command, samples().dtypeArgs()))
          .as(
              "commandFor(role, attachment) %s holds dtypeArgs(dtype) %s",
              command, samples().dtypeArgs())
          .isNotNegative();
      samples().assertEachDtypeFlagFound(command, 1, "commandFor(role, attachment)");
    }

    @Test
    void dtype_args_render_each_dtype_flag_once_with_its_value() {
      assertThat(KitChecks.dtypeArgsProblems(subject(), samples().dtype().value())).isEmpty();
    }

    @Test
    void the_dtype_args_come_after_the_base_argv_and_before_extra_args() {
      List<String> command = samples().commandWithAttachment(sampleExtraArgs(), true);
      List<String> base = subject().baseArgv(sampleModel());
      int pair = Collections.indexOfSubList(command, samples().dtypeArgs());
      int extra = Collections.indexOfSubList(command, sampleExtraArgs());
      assertThat(command.subList(0, Math.min(base.size(), command.size())))
          .as("commandFor(role, attachment) %s starts with baseArgv(model)", command)
          .isEqualTo(base);
      assertThat(pair)
          .as(
              "commandFor(role, attachment) %s holds dtypeArgs(dtype) %s after baseArgv(model)",
              command, samples().dtypeArgs())
          .isGreaterThanOrEqualTo(base.size());
      assertThat(extra)
          .as(
              "commandFor(role, attachment) %s holds the role's extraArgs %s after"
                  + " dtypeArgs(dtype), so the role's own flags win",
              command, sampleExtraArgs())
          .isGreaterThan(pair);
    }

    @Test
    void a_stored_roles_own_flag_comes_later_and_wins() {
      for (String flag : subject().dtypeFlags()) {
        List<String> own = List.of(flag, "own");
        List<String> command = samples().commandWithAttachment(own, true);
        assertThat(samples().newestReader().lastValue(command, flag))
            .as(
                "commandFor(role, attachment) with extraArgs %s must end with the role's own"
                    + " value for %s: %s",
                own, flag, command)
            .contains("own");
        assertThat(samples().newestReader().find(command, flag))
            .as(
                "commandFor(role, attachment) with extraArgs %s passes %s twice, the Binding's"
                    + " then the role's: %s",
                own, flag, command)
            .hasSize(2);
      }
    }

    @Test
    void nothing_is_rendered_while_the_dtype_is_not_owned() {
      List<String> command = samples().commandWithAttachment(sampleExtraArgs(), false);
      samples()
          .assertEachDtypeFlagFound(
              command, 0, "commandFor(role, attachment) with the dtype not owned");
    }

    @Test
    void nothing_is_rendered_without_a_store_attachment() {
      List<String> command = samples().command(sampleExtraArgs(), Optional.empty());
      samples()
          .assertEachDtypeFlagFound(
              command, 0, "commandFor(role, attachment) without an attachment");
      assertThat(command)
          .as("commandFor(role, no attachment) keeps the role's extraArgs %s", sampleExtraArgs())
          .containsSequence(sampleExtraArgs());
    }

    @Test
    void the_listen_address_is_filled_once() {
      List<String> command = samples().commandWithAttachment(sampleExtraArgs(), true);
      for (String flag : subject().listenFlags()) {
        assertThat(samples().newestReader().find(command, flag))
            .as("commandFor(role, attachment) passes listen flag %s once: %s", flag, command)
            .hasSize(1);
      }
    }
  }

  @Nested
  @DisplayName("an injected container's args end with the Binding's dtype")
  class InjectedArgs {
    @Test
    void the_appended_args_end_with_the_dtype_args_and_hold_nothing_of_the_containers() {
      List<String> args = List.of("--served-model-name", "m");
      AttachmentRequest request = samples().attachment(true);
      List<String> out =
          subject().appendedArgs(List.of("launcher"), args, request, subject().attachment(request));
      assertThat(Collections.indexOfSubList(out, args))
          .as("appendedArgs(...) returns only what it adds: %s", out)
          .isNegative();
      assertThat(out.subList(Math.max(0, out.size() - samples().dtypeArgs().size()), out.size()))
          .as("appendedArgs(...) ends with dtypeArgs(dtype): %s", out)
          .isEqualTo(samples().dtypeArgs());
      samples().assertEachDtypeFlagFound(out, 1, "appendedArgs(...)");
    }

    @Test
    void nothing_about_the_dtype_is_appended_while_it_is_not_owned() {
      AttachmentRequest request = samples().attachment(false);
      List<String> out =
          subject()
              .appendedArgs(List.of("launcher"), List.of(), request, subject().attachment(request));
      samples().assertEachDtypeFlagFound(out, 0, "appendedArgs(...) with the dtype not owned");
    }
  }

  @Nested
  @DisplayName(
      "the flag reader reads every spelling the engine's parser reads as the flag, and no longer sibling")
  class FlagSpellings {
    @Test
    void every_inventory_knows_the_dtype_flags_and_every_owned_and_listen_flag() {
      assertThat(KitChecks.declaredFlagsMissingFromInventories(subject())).isEmpty();
    }

    @Test
    void every_flag_the_attachment_renders_exists_in_the_inventory_of_every_version() {
      assertThat(
              KitChecks.renderedFlagsMissingFromInventories(subject(), samples().dtype().value()))
          .isEmpty();
    }

    @Test
    void no_flag_drops_out_of_one_range_and_comes_back() {
      assertThat(KitChecks.flagsMissingBetweenRanges(subject())).isEmpty();
    }

    @Test
    void inventory_names_are_spelled_the_way_the_dialect_reads_them() {
      assertThat(KitChecks.namesTheDialectCannotRead(subject())).isEmpty();
    }

    @Test
    void the_keys_and_values_twin_of_a_dtype_flag_is_a_dtype_flag_too() {
      assertThat(KitChecks.unownedTwinsOfDtypeFlags(subject())).isEmpty();
    }

    @Test
    void
        every_name_and_inline_or_attached_spelling_reads_as_the_flag_exactly_where_the_dialect_says() {
      for (FlagInventory inventory : subject().flagInventories()) {
        FlagReader reader = samples().readerFor(inventory);
        for (String flag : samples().readFlags(inventory)) {
          for (String name : inventory.flag(flag).map(FlagSpec::names).orElse(List.of(flag))) {
            ContractSamples.assertSpellingsReadAsTheDialectSays(reader, inventory, flag, name);
          }
        }
      }
    }

    @Test
    void the_underscore_and_dotted_spellings_read_as_the_flag_exactly_where_the_dialect_says() {
      for (FlagInventory inventory : subject().flagInventories()) {
        FlagReader reader = samples().readerFor(inventory);
        ArgvDialect dialect = reader.dialect();
        for (String flag : samples().readFlags(inventory)) {
          String underscored = "--" + flag.substring(2).replace('-', '_');
          if (!underscored.equals(flag)) {
            assertThat(reader.read(underscored).orElseThrow().readsAs(flag))
                .as(
                    "%s: %s reads as %s exactly where the dialect's underscoresAsDashes() (%s)"
                        + " says; FlagReader follows dialect(), so declare the parser's",
                    inventory.versions(), underscored, flag, dialect.underscoresAsDashes())
                .isEqualTo(dialect.underscoresAsDashes());
          }
          assertThat(reader.read(flag + ".member").orElseThrow().readsAs(flag))
              .as(
                  "%s: %s.member reads as %s exactly where the dialect's dottedMembers() (%s)"
                      + " says",
                  inventory.versions(), flag, flag, dialect.dottedMembers())
              .isEqualTo(dialect.dottedMembers());
        }
      }
    }

    @Test
    void every_prefix_reads_as_the_parser_resolves_it() {
      for (FlagInventory inventory : subject().flagInventories()) {
        FlagReader reader = samples().readerFor(inventory);
        for (String flag : samples().readFlags(inventory)) {
          ContractSamples.assertPrefixesReadAsTheParserResolves(reader, inventory, flag);
        }
      }
    }

    @Test
    void a_longer_flag_sharing_the_stem_is_not_the_flag() {
      for (FlagInventory inventory : subject().flagInventories()) {
        FlagReader reader = samples().readerFor(inventory);
        for (String flag : samples().readFlags(inventory)) {
          for (FlagSpec sibling : inventory.flags()) {
            if (sibling.name().startsWith(flag) && !sibling.name().equals(flag)) {
              assertThat(reader.find(List.of(sibling.name(), "0"), flag))
                  .as(
                      "%s: %s is its own flag, not %s; list it in flagInventories() so the"
                          + " reader tells them apart",
                      inventory.versions(), sibling.name(), flag)
                  .isEmpty();
            }
          }
        }
      }
    }

    @Test
    void the_flag_after_a_bare_double_dash_is_positional() {
      FlagReader reader = samples().newestReader();
      for (String flag : subject().dtypeFlags()) {
        assertThat(reader.find(List.of("--", flag, "x"), flag))
            .as("%s after a bare --, with doubleDashEndsOptions() in dialect()", flag)
            .hasSize(reader.dialect().doubleDashEndsOptions() ? 0 : 1);
      }
    }

    @Test
    void every_flag_that_changes_the_kv_format_says_what_it_changes() {
      for (FlagInventory inventory : subject().flagInventories()) {
        for (FlagSpec flag : inventory.kvFormatFlags()) {
          assertThat(flag.kvEffect().orElseThrow())
              .as(
                  "flagInventories() for %s marks %s withKvEffect but says nothing of what it"
                      + " changes",
                  inventory.versions(), flag.name())
              .isNotBlank();
          assertThat(subject().dtypeFlags())
              .as(
                  "flagInventories() for %s marks %s withKvEffect, but dtypeFlags() renders and"
                      + " owns it: a dtype flag is no side effect, drop withKvEffect",
                  inventory.versions(), flag.name())
              .doesNotContain(flag.name());
        }
      }
    }
  }

  @Nested
  @DisplayName("rendering is deterministic")
  class Determinism {
    @Test
    void equal_inputs_render_equal_argv_env_and_config() {
      assertThat(subject().attachment(samples().attachment(true)))
          .as("attachment(request) twice for one request must be equal")
          .isEqualTo(subject().attachment(samples().attachment(true)));
      assertThat(samples().commandWithAttachment(sampleExtraArgs(), true))
          .as("commandFor(role, attachment) twice for equal roles must be equal")
          .isEqualTo(samples().commandWithAttachment(new ArrayList<>(sampleExtraArgs()), true));
    }
  }

  @Nested
  @DisplayName("its dtype reports read what the engine answers, and nothing else")
  class Reports {
    @Test
    void every_report_names_its_path_and_source_and_the_ranges_ascend() {
      List<DtypeReport> reports = subject().dtypeReports();
      if (!reports.isEmpty()) {
        Versioned.checkOrdered("dtypeReports()", reports);
      }
      for (DtypeReport report : reports) {
        assertThat(report.path())
            .as("path() of dtypeReports() for %s is a path on the serving port", report.versions())
            .startsWith("/");
        assertThat(report.source())
            .as("source() of dtypeReports() for %s must name where it was read", report.versions())
            .isNotBlank();
      }
    }

    @Test
    void every_report_ships_a_fixture_captured_from_the_engine() {
      assertThat(KitChecks.reportsWithoutFixtures(subject())).isEmpty();
    }

    @Test
    void every_shipped_fixture_reads_as_it_says() {
      assertThat(KitChecks.fixturesThatDoNotReadAsTheySay(subject())).isEmpty();
    }

    @Test
    void a_sample_of_every_accepted_spelling_reads_back_as_its_engine_value() {
      for (DtypeReport report : subject().dtypeReports()) {
        Optional<String> version = report.versions().from().map(Object::toString);
        subject()
            .dtypeSpellings()
            .forVersion(version)
            .entry()
            .ifPresent(
                spellings -> {
                  for (String spelling : spellings.spellings()) {
                    String value = spellings.engineValue(spelling);
                    assertThat(report.read(report.sample(value)))
                        .as(
                            "dtypeReports() for %s: read(sample(%s)) must give %s, the engine"
                                + " value dtypeSpellings() declares for %s: make sample(value)"
                                + " answer as the engine does running it, and read(body) read"
                                + " that",
                            report.versions(), value, value, spelling)
                        .contains(value);
                  }
                });
      }
    }

    @Test
    void garbage_empty_and_huge_answers_read_as_not_reported() {
      String huge = "x".repeat(4 << 20);
      for (DtypeReport report : subject().dtypeReports()) {
        for (String body :
            List.of(
                "",
                "not the report {",
                "<html><body>404 page not found</body></html>",
                "{}",
                "[1,2",
                huge)) {
          assertThat(report.read(body))
              .as(
                  "dtypeReports() for %s: read(%.40s) must read as not reported, never as a"
                      + " dtype",
                  report.versions(), body)
              .isEmpty();
        }
      }
    }
  }

  @Nested
  @DisplayName("it is registered through META-INF/services")
  class Registration {
    @Test
    void the_service_loader_finds_this_engine_class() {
      List<String> found =
          ServiceLoader.load(Engine.class, subject().getClass().getClassLoader()).stream()
              .map(p -> p.type().getName())
              .collect(Collectors.toList());
      assertThat(found)
          .as(
              "META-INF/services/ai.gpustack.kvcache.spi.Engine lists %s: annotate it"
                  + " @AutoService(Engine.class)",
              subject().getClass().getName())
          .contains(subject().getClass().getName());
    }

    @Test
    void the_loaded_registry_resolves_its_id_to_this_class() {
      EngineRegistry registry = EngineRegistry.load(subject().getClass().getClassLoader());
      assertThat(registry.resolve(subject().id()))
          .as("the loaded registry resolves id() %s to %s", subject().id(), subject().getClass())
          .isInstanceOf(subject().getClass());
    }
  }
}
