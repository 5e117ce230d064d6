package ai.gpustack.kvcache.tck;

import static org.assertj.core.api.Assertions.assertThat;

import ai.gpustack.kvcache.api.Dtype;
import ai.gpustack.kvcache.api.ReuseDomain;
import ai.gpustack.kvcache.api.RoleKind;
import ai.gpustack.kvcache.spi.ArgvDialect;
import ai.gpustack.kvcache.spi.AttachmentRequest;
import ai.gpustack.kvcache.spi.DtypeReport;
import ai.gpustack.kvcache.spi.DtypeSpellings;
import ai.gpustack.kvcache.spi.Engine;
import ai.gpustack.kvcache.spi.EngineRegistry;
import ai.gpustack.kvcache.spi.FlagInventory;
import ai.gpustack.kvcache.spi.FlagReader;
import ai.gpustack.kvcache.spi.FlagReading;
import ai.gpustack.kvcache.spi.FlagSpec;
import ai.gpustack.kvcache.spi.ManagedRole;
import ai.gpustack.kvcache.spi.ReadToken;
import ai.gpustack.kvcache.spi.Versioned;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
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

  /** A model name the engine can be rendered with. */
  protected String sampleModel() {
    return "example-org/example-model";
  }

  /** The extra args a sample role passes; they must not name the dtype flag. */
  protected List<String> sampleExtraArgs() {
    return List.of("--max-num-seqs", "8");
  }

  private Dtype sampleDtype() {
    DtypeSpellings newest = engine().dtypeSpellings().newest();
    return Dtype.of(
        newest.spellings().stream()
            .filter(s -> !s.equals(Dtype.AUTO))
            .findFirst()
            .orElse(Dtype.AUTO));
  }

  private AttachmentRequest attachment(boolean dtypeOwned) {
    return AttachmentRequest.builder()
        .roleKind(RoleKind.Server)
        .clientEndpoint("mooncake-master.kv.svc:50051")
        .domain(
            ReuseDomain.builder().name("team-a").blockSize(16).dtype(sampleDtype().value()).build())
        .tenant("team-a")
        .dtypeOwned(dtypeOwned)
        .build();
  }

  private ManagedRole role(List<String> extraArgs, Optional<AttachmentRequest> attachment) {
    return ManagedRole.builder()
        .model(sampleModel())
        .addAllExtraArgs(extraArgs)
        .attachment(attachment)
        .build();
  }

  private List<String> dtypePair() {
    return List.of(engine().dtypeFlag(), sampleDtype().value());
  }

  private FlagReader newestReader() {
    return engine().flagReader(Optional.empty());
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
              "spellings with no KV format: map each with DtypeSpellings.of(from, until, source,"
                  + " Map.of(spelling, KvFormat...)) or putFormats")
          .isEmpty();
    }

    @Test
    void auto_and_only_auto_is_model_dependent() {
      for (DtypeSpellings entry : engine().dtypeSpellings().entries()) {
        entry
            .formats()
            .forEach(
                (spelling, format) ->
                    assertThat(format.modelDependent())
                        .as("%s %s is %s", entry.versions(), spelling, format)
                        .isEqualTo(spelling.equals(Dtype.AUTO)));
      }
    }

    @Test
    void the_newest_entry_is_open_ended_so_a_newer_build_reads_the_newest_table() {
      assertThat(engine().dtypeSpellings().newest().versions().until()).isEmpty();
    }

    @Test
    void a_missing_version_reads_the_newest_table() {
      assertThat(engine().checkDtype(sampleDtype().value(), Optional.empty()).accepted()).isTrue();
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
    void the_dtype_pair_appears_exactly_once() {
      List<String> command =
          engine().renderCommand(role(sampleExtraArgs(), Optional.of(attachment(true))));
      assertThat(Collections.indexOfSubList(command, dtypePair())).isNotNegative();
      assertThat(newestReader().find(command, engine().dtypeFlag())).hasSize(1);
    }

    @Test
    void the_dtype_pair_comes_after_the_base_argv_and_before_extra_args() {
      List<String> command =
          engine().renderCommand(role(sampleExtraArgs(), Optional.of(attachment(true))));
      int pair = Collections.indexOfSubList(command, dtypePair());
      int extra = Collections.indexOfSubList(command, sampleExtraArgs());
      assertThat(command.subList(0, engine().baseArgv(sampleModel()).size()))
          .isEqualTo(engine().baseArgv(sampleModel()));
      assertThat(pair).isGreaterThanOrEqualTo(engine().baseArgv(sampleModel()).size());
      assertThat(extra).isGreaterThan(pair);
    }

    @Test
    void a_stored_roles_own_flag_comes_later_and_wins() {
      List<String> own = List.of(engine().dtypeFlag(), "auto");
      List<String> command = engine().renderCommand(role(own, Optional.of(attachment(true))));
      assertThat(newestReader().lastValue(command, engine().dtypeFlag())).contains("auto");
      assertThat(newestReader().find(command, engine().dtypeFlag())).hasSize(2);
    }

    @Test
    void nothing_is_rendered_while_the_dtype_is_not_owned() {
      List<String> command =
          engine().renderCommand(role(sampleExtraArgs(), Optional.of(attachment(false))));
      assertThat(newestReader().find(command, engine().dtypeFlag())).isEmpty();
    }

    @Test
    void nothing_is_rendered_without_a_store_attachment() {
      List<String> command = engine().renderCommand(role(sampleExtraArgs(), Optional.empty()));
      assertThat(newestReader().find(command, engine().dtypeFlag())).isEmpty();
      assertThat(command).containsSequence(sampleExtraArgs());
    }

    @Test
    void the_listen_address_is_filled_once() {
      List<String> command =
          engine().renderCommand(role(sampleExtraArgs(), Optional.of(attachment(true))));
      for (String flag : engine().listenFlags()) {
        assertThat(newestReader().find(command, flag)).as(flag).hasSize(1);
      }
    }
  }

  @Nested
  @DisplayName("an injected container's args end with the Binding's dtype")
  class InjectedArgs {
    @Test
    void the_args_keep_their_own_entries_first_and_end_with_the_dtype_pair() {
      List<String> args = List.of("--served-model-name", "m");
      AttachmentRequest request = attachment(true);
      List<String> out =
          engine()
              .renderInjectedArgs(
                  List.of("launcher"),
                  args,
                  Optional.empty(),
                  request,
                  engine().attachment(request));
      assertThat(out.subList(0, args.size())).isEqualTo(args);
      assertThat(out.subList(out.size() - 2, out.size())).isEqualTo(dtypePair());
      assertThat(newestReader().find(out, engine().dtypeFlag())).hasSize(1);
    }

    @Test
    void nothing_about_the_dtype_is_appended_while_it_is_not_owned() {
      AttachmentRequest request = attachment(false);
      List<String> out =
          engine()
              .renderInjectedArgs(
                  List.of("launcher"),
                  List.of(),
                  Optional.empty(),
                  request,
                  engine().attachment(request));
      assertThat(newestReader().find(out, engine().dtypeFlag())).isEmpty();
    }
  }

  @Nested
  @DisplayName(
      "the flag reader reads every spelling the engine's parser reads as the flag, and no longer sibling")
  class FlagSpellings {
    @Test
    void every_inventory_knows_the_dtype_flag_and_every_owned_and_listen_flag() {
      for (FlagInventory inventory : engine().flagInventories()) {
        List<String> names = inventory.flags().stream().map(FlagSpec::name).toList();
        assertThat(names).as("inventory %s", inventory.versions()).contains(engine().dtypeFlag());
        assertThat(names).containsAll(engine().ownedFlags());
        assertThat(names).containsAll(engine().listenFlags());
        assertThat(inventory.source()).isNotBlank();
      }
    }

    @Test
    void every_flag_the_attachment_renders_exists_in_the_inventory_of_every_version() {
      assertThat(KitChecks.renderedFlagsMissingFromInventories(engine(), sampleDtype().value()))
          .as(
              "flags the module renders that its flagInventories() do not list for that version"
                  + " range: the engine would exit on them there; add them to the inventory of the"
                  + " versions that have them, or render them only from those versions")
          .isEmpty();
    }

    @Test
    void the_exact_and_inline_spellings_read_as_the_flag() {
      for (FlagInventory inventory : engine().flagInventories()) {
        FlagReader reader = readerFor(inventory);
        for (String flag : readFlags(inventory)) {
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
        FlagReader reader = readerFor(inventory);
        ArgvDialect dialect = reader.dialect();
        for (String flag : readFlags(inventory)) {
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
        FlagReader reader = readerFor(inventory);
        for (String flag : readFlags(inventory)) {
          for (int end = 3; end < flag.length(); end++) {
            String prefix = flag.substring(0, end);
            List<String> candidates =
                inventory.flags().stream()
                    .map(FlagSpec::name)
                    .filter(n -> n.startsWith(prefix))
                    .toList();
            ReadToken read = reader.read(prefix).orElseThrow();
            if (candidates.contains(prefix)) {
              assertThat(read.reading()).isEqualTo(FlagReading.EXACT);
            } else if (!reader.dialect().abbreviations()) {
              assertThat(read.readsAs(flag)).as(prefix).isFalse();
            } else if (candidates.size() == 1) {
              assertThat(read.readsAs(flag)).as("unique prefix %s", prefix).isTrue();
            } else {
              assertThat(read.reading()).as("prefix %s", prefix).isEqualTo(FlagReading.AMBIGUOUS);
              assertThat(read.candidates()).containsExactlyInAnyOrderElementsOf(candidates);
            }
          }
        }
      }
    }

    @Test
    void a_longer_flag_sharing_the_stem_is_not_the_flag() {
      for (FlagInventory inventory : engine().flagInventories()) {
        FlagReader reader = readerFor(inventory);
        for (String flag : readFlags(inventory)) {
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
      FlagReader reader = newestReader();
      List<String> argv = List.of("--", engine().dtypeFlag(), "x");
      assertThat(reader.find(argv, engine().dtypeFlag()))
          .hasSize(reader.dialect().doubleDashEndsOptions() ? 0 : 1);
    }

    @Test
    void every_flag_that_changes_the_kv_format_says_what_it_changes() {
      for (FlagInventory inventory : engine().flagInventories()) {
        for (FlagSpec flag : inventory.kvFormatFlags()) {
          assertThat(flag.kvEffect().orElseThrow())
              .as("%s %s", inventory.versions(), flag.name())
              .isNotBlank();
          assertThat(flag.name()).isNotEqualTo(engine().dtypeFlag());
        }
      }
    }

    /** The flags this project reads on the engine: the dtype flag and the KV-format flags. */
    private List<String> readFlags(FlagInventory inventory) {
      List<String> flags = new ArrayList<>(List.of(engine().dtypeFlag()));
      inventory.kvFormatFlags().forEach(f -> flags.add(f.name()));
      return flags;
    }

    private FlagReader readerFor(FlagInventory inventory) {
      return new FlagReader(inventory.dialect().orElse(engine().dialect()), inventory);
    }
  }

  @Nested
  @DisplayName("rendering is deterministic")
  class Determinism {
    @Test
    void equal_inputs_render_equal_argv_env_and_config() {
      assertThat(engine().attachment(attachment(true)))
          .isEqualTo(engine().attachment(attachment(true)));
      assertThat(engine().renderCommand(role(sampleExtraArgs(), Optional.of(attachment(true)))))
          .isEqualTo(
              engine()
                  .renderCommand(
                      role(new ArrayList<>(sampleExtraArgs()), Optional.of(attachment(true)))));
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
          String body;
          try (InputStream in = engine().getClass().getResourceAsStream(fixture.resource())) {
            assertThat(in)
                .as("fixture %s next to %s", fixture.resource(), engine().getClass())
                .isNotNull();
            body = new String(in.readAllBytes(), StandardCharsets.UTF_8);
          }
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
