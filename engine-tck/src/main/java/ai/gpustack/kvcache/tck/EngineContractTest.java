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
import ai.gpustack.kvcache.spi.ReadToken;
import ai.gpustack.kvcache.spi.Versioned;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Locale;
import java.util.Optional;
import java.util.ServiceLoader;
import java.util.stream.Collectors;
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

  /** The sample role, attachment and readers, built for the engine under test. */
  private ContractSamples samples() {
    return new ContractSamples(engine(), sampleModel());
  }

  @Nested
  @DisplayName("its id is usable by people and by the registry")
  class Identity {
    @Test
    void the_id_starts_with_a_letter_and_holds_no_spaces() {
      assertThat(engine().id()).matches("[A-Za-z][A-Za-z0-9._-]*");
      assertThat(engine().displayName()).isNotBlank();
    }

    @Test
    void the_artifact_is_maven_coordinates() {
      assertThat(engine().artifact()).matches("[A-Za-z0-9_.-]+:[A-Za-z0-9_.-]+");
    }

    @Test
    void the_registry_resolves_it_whatever_the_case() {
      EngineRegistry registry = EngineRegistry.of(List.of(engine()));
      String id = engine().id();
      assertThat(registry.resolve(id.toLowerCase(Locale.ROOT)).id()).isEqualTo(id);
      assertThat(registry.resolve(id.toUpperCase(Locale.ROOT)).id()).isEqualTo(id);
    }
  }

  @Nested
  @DisplayName("what it renders starts the way the injection launch check expects")
  class Launches {
    @Test
    void the_base_argv_starts_with_a_declared_launch_subcommands_included() {
      assertThat(KitChecks.launchProblems(engine(), sampleModel())).isEmpty();
    }
  }

  @Nested
  @DisplayName("its spelling table is sourced, lowercase and covers every future version")
  class Spellings {
    @Test
    void every_entry_names_where_it_was_read() {
      for (DtypeSpellings entry : engine().dtypeSpellings().entries()) {
        assertThat(entry.source()).as("source of %s", entry.versions()).isNotBlank();
      }
    }

    @Test
    void every_spelling_is_a_valid_dtype() {
      for (DtypeSpellings entry : engine().dtypeSpellings().entries()) {
        for (String spelling : entry.spellings()) {
          assertThat(Dtype.of(spelling).value()).isEqualTo(spelling);
        }
      }
    }

    @Test
    void every_accepted_spelling_maps_to_the_kv_format_it_stores() {
      List<String> unmapped = new ArrayList<>();
      for (DtypeSpellings entry : engine().dtypeSpellings().entries()) {
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
    void auto_where_accepted_leaves_the_cache_at_the_models_dtype() {
      for (DtypeSpellings entry : engine().dtypeSpellings().entries()) {
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
      assertThat(engine().dtypeSpellings().newest().versions().until()).isEmpty();
    }

    @Test
    void a_missing_version_reads_the_newest_table() {
      assertThat(engine().checkDtype(samples().dtype().value(), Optional.empty()).accepted())
          .isTrue();
    }

    @Test
    void the_quick_acceptance_answer_agrees_with_the_full_verdict() {
      List<String> spellings = new ArrayList<>(List.of("no_such_dtype", "auto"));
      List<Optional<String>> versions = new ArrayList<>(List.of(Optional.empty()));
      for (DtypeSpellings entry : engine().dtypeSpellings().entries()) {
        spellings.addAll(entry.spellings());
        entry.versions().from().ifPresent(v -> versions.add(Optional.of(v.toString())));
      }
      for (Optional<String> version : versions) {
        for (String dtype : spellings) {
          assertThat(engine().acceptsDtype(dtype, version))
              .as("%s at %s", dtype, version)
              .isEqualTo(engine().checkDtype(dtype, version).accepted());
        }
      }
    }

    @Test
    void a_spelling_outside_the_table_is_rejected_with_what_is_accepted() {
      var verdict = engine().checkDtype("no_such_dtype", Optional.empty());
      assertThat(verdict.accepted()).isFalse();
      assertThat(verdict.spellings()).isEqualTo(engine().dtypeSpellings().newest().spellings());
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
      assertThat(KitChecks.dtypeArgsProblems(engine(), samples().dtype().value())).isEmpty();
    }

    @Test
    void the_dtype_args_come_after_the_base_argv_and_before_extra_args() {
      List<String> command = samples().commandWithAttachment(sampleExtraArgs(), true);
      int pair = Collections.indexOfSubList(command, samples().dtypeArgs());
      int extra = Collections.indexOfSubList(command, sampleExtraArgs());
      assertThat(command.subList(0, engine().baseArgv(sampleModel()).size()))
          .isEqualTo(engine().baseArgv(sampleModel()));
      assertThat(pair).isGreaterThanOrEqualTo(engine().baseArgv(sampleModel()).size());
      assertThat(extra).isGreaterThan(pair);
    }

    @Test
    void a_stored_roles_own_flag_comes_later_and_wins() {
      for (String flag : engine().dtypeFlags()) {
        List<String> own = List.of(flag, "own");
        List<String> command = samples().commandWithAttachment(own, true);
        assertThat(samples().newestReader().lastValue(command, flag))
            .as("%s", command)
            .contains("own");
        assertThat(samples().newestReader().find(command, flag)).as("%s", command).hasSize(2);
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
      assertThat(command).containsSequence(sampleExtraArgs());
    }

    @Test
    void the_listen_address_is_filled_once() {
      List<String> command = samples().commandWithAttachment(sampleExtraArgs(), true);
      for (String flag : engine().listenFlags()) {
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
          engine().appendedArgs(List.of("launcher"), args, request, engine().attachment(request));
      assertThat(Collections.indexOfSubList(out, args))
          .as("appendedArgs(...) returns only what it adds: %s", out)
          .isNegative();
      assertThat(out.subList(out.size() - samples().dtypeArgs().size(), out.size()))
          .as("appendedArgs(...) ends with dtypeArgs(dtype): %s", out)
          .isEqualTo(samples().dtypeArgs());
      samples().assertEachDtypeFlagFound(out, 1, "appendedArgs(...)");
    }

    @Test
    void nothing_about_the_dtype_is_appended_while_it_is_not_owned() {
      AttachmentRequest request = samples().attachment(false);
      List<String> out =
          engine()
              .appendedArgs(List.of("launcher"), List.of(), request, engine().attachment(request));
      samples().assertEachDtypeFlagFound(out, 0, "appendedArgs(...) with the dtype not owned");
    }
  }

  @Nested
  @DisplayName(
      "the flag reader reads every spelling the engine's parser reads as the flag, and no longer sibling")
  class FlagSpellings {
    @Test
    void every_inventory_knows_the_dtype_flags_and_every_owned_and_listen_flag() {
      assertThat(KitChecks.declaredFlagsMissingFromInventories(engine())).isEmpty();
    }

    @Test
    void every_flag_the_attachment_renders_exists_in_the_inventory_of_every_version() {
      assertThat(KitChecks.renderedFlagsMissingFromInventories(engine(), samples().dtype().value()))
          .isEmpty();
    }

    @Test
    void no_flag_drops_out_of_one_range_and_comes_back() {
      assertThat(KitChecks.flagsMissingBetweenRanges(engine())).isEmpty();
    }

    @Test
    void inventory_names_are_spelled_the_way_the_dialect_reads_them() {
      assertThat(KitChecks.namesTheDialectCannotRead(engine())).isEmpty();
    }

    @Test
    void the_exact_and_inline_spellings_read_as_the_flag() {
      for (FlagInventory inventory : engine().flagInventories()) {
        FlagReader reader = samples().readerFor(inventory);
        for (String flag : samples().readFlags(inventory)) {
          assertThat(reader.read(flag).orElseThrow().readsAs(flag)).as(flag).isTrue();
          ReadToken inline = reader.read(flag + "=x").orElseThrow();
          assertThat(inline.readsAs(flag)).as(flag + "=x").isTrue();
          assertThat(inline.inlineValue()).contains("x");
        }
      }
    }

    @Test
    void the_underscore_and_dotted_spellings_read_as_the_flag_exactly_where_the_dialect_says() {
      for (FlagInventory inventory : engine().flagInventories()) {
        FlagReader reader = samples().readerFor(inventory);
        ArgvDialect dialect = reader.dialect();
        for (String flag : samples().readFlags(inventory)) {
          String underscored = "--" + flag.substring(2).replace('-', '_');
          if (!underscored.equals(flag)) {
            assertThat(reader.read(underscored).orElseThrow().readsAs(flag))
                .as("%s %s", inventory.versions(), underscored)
                .isEqualTo(dialect.underscoresAsDashes());
          }
          assertThat(reader.read(flag + ".member").orElseThrow().readsAs(flag))
              .as("%s %s.member", inventory.versions(), flag)
              .isEqualTo(dialect.dottedMembers());
        }
      }
    }

    @Test
    void every_prefix_reads_as_the_parser_resolves_it() {
      for (FlagInventory inventory : engine().flagInventories()) {
        FlagReader reader = samples().readerFor(inventory);
        for (String flag : samples().readFlags(inventory)) {
          ContractSamples.assertPrefixesReadAsTheParserResolves(reader, inventory, flag);
        }
      }
    }

    @Test
    void a_longer_flag_sharing_the_stem_is_not_the_flag() {
      for (FlagInventory inventory : engine().flagInventories()) {
        FlagReader reader = samples().readerFor(inventory);
        for (String flag : samples().readFlags(inventory)) {
          for (FlagSpec sibling : inventory.flags()) {
            if (sibling.name().startsWith(flag) && !sibling.name().equals(flag)) {
              assertThat(reader.find(List.of(sibling.name(), "0"), flag))
                  .as(sibling.name())
                  .isEmpty();
            }
          }
        }
      }
    }

    @Test
    void the_flag_after_a_bare_double_dash_is_positional() {
      FlagReader reader = samples().newestReader();
      for (String flag : engine().dtypeFlags()) {
        assertThat(reader.find(List.of("--", flag, "x"), flag))
            .as("%s after a bare --, with doubleDashEndsOptions() in dialect()", flag)
            .hasSize(reader.dialect().doubleDashEndsOptions() ? 0 : 1);
      }
    }

    @Test
    void every_flag_that_changes_the_kv_format_says_what_it_changes() {
      for (FlagInventory inventory : engine().flagInventories()) {
        for (FlagSpec flag : inventory.kvFormatFlags()) {
          assertThat(flag.kvEffect().orElseThrow())
              .as("%s %s", inventory.versions(), flag.name())
              .isNotBlank();
          assertThat(engine().dtypeFlags()).doesNotContain(flag.name());
        }
      }
    }
  }

  @Nested
  @DisplayName("rendering is deterministic")
  class Determinism {
    @Test
    void equal_inputs_render_equal_argv_env_and_config() {
      assertThat(engine().attachment(samples().attachment(true)))
          .isEqualTo(engine().attachment(samples().attachment(true)));
      assertThat(samples().commandWithAttachment(sampleExtraArgs(), true))
          .isEqualTo(samples().commandWithAttachment(new ArrayList<>(sampleExtraArgs()), true));
    }
  }

  @Nested
  @DisplayName("its dtype reports read what the engine answers, and nothing else")
  class Reports {
    @Test
    void every_report_names_its_path_and_source_and_the_ranges_ascend() {
      List<DtypeReport> reports = engine().dtypeReports();
      if (!reports.isEmpty()) {
        Versioned.checkOrdered("dtype reports", reports);
      }
      for (DtypeReport report : reports) {
        assertThat(report.path()).as("path of %s", report.versions()).startsWith("/");
        assertThat(report.source()).as("source of %s", report.versions()).isNotBlank();
      }
    }

    @Test
    void every_shipped_fixture_reads_as_it_says() throws Exception {
      for (DtypeReport report : engine().dtypeReports()) {
        for (DtypeReport.ReportFixture fixture : report.fixtures()) {
          assertThat(fixture.source()).as(fixture.resource()).isNotBlank();
          String body = samples().fixtureBody(fixture);
          assertThat(report.read(body))
              .as("%s %s", report.versions(), fixture.resource())
              .isEqualTo(fixture.reports());
        }
      }
    }

    @Test
    void a_sample_of_every_accepted_spelling_reads_back_as_it() {
      for (DtypeReport report : engine().dtypeReports()) {
        Optional<String> version = report.versions().from().map(Object::toString);
        engine()
            .dtypeSpellings()
            .forVersion(version)
            .entry()
            .ifPresent(
                spellings -> {
                  for (String spelling : spellings.spellings()) {
                    assertThat(report.read(report.sample(spelling)))
                        .as("%s %s", report.versions(), spelling)
                        .contains(spelling);
                  }
                });
      }
    }

    @Test
    void garbage_empty_and_huge_answers_read_as_not_reported() {
      String huge = "x".repeat(4 << 20);
      for (DtypeReport report : engine().dtypeReports()) {
        for (String body :
            List.of(
                "",
                "not the report {",
                "<html><body>404 page not found</body></html>",
                "{}",
                "[1,2",
                huge)) {
          assertThat(report.read(body)).as("%s %.40s", report.versions(), body).isEmpty();
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
          ServiceLoader.load(Engine.class, engine().getClass().getClassLoader()).stream()
              .map(p -> p.type().getName())
              .collect(Collectors.toList());
      assertThat(found).contains(engine().getClass().getName());
    }

    @Test
    void the_loaded_registry_resolves_its_id_to_this_class() {
      EngineRegistry registry = EngineRegistry.load(engine().getClass().getClassLoader());
      assertThat(registry.resolve(engine().id())).isInstanceOf(engine().getClass());
    }
  }
}
