package ai.gpustack.kvcache.tck;

import ai.gpustack.kvcache.api.ReuseDomain;
import ai.gpustack.kvcache.api.RoleKind;
import ai.gpustack.kvcache.spi.ArgGroup;
import ai.gpustack.kvcache.spi.ArgvDialect;
import ai.gpustack.kvcache.spi.AttachmentRequest;
import ai.gpustack.kvcache.spi.CacheAttachment;
import ai.gpustack.kvcache.spi.DtypeReport;
import ai.gpustack.kvcache.spi.DtypeSpellings;
import ai.gpustack.kvcache.spi.Engine;
import ai.gpustack.kvcache.spi.EngineVersion;
import ai.gpustack.kvcache.spi.FlagInventory;
import ai.gpustack.kvcache.spi.FlagSpec;
import ai.gpustack.kvcache.spi.Launch;
import ai.gpustack.kvcache.spi.VersionScheme;
import ai.gpustack.kvcache.spi.Versioned;
import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.TreeSet;
import java.util.stream.Collectors;

/**
 * Checks of a module's declarations against each other. Each returns one line per problem, saying
 * what the module declared, what the kit expected and which method to change; empty when the module
 * is consistent.
 */
final class KitChecks {
  private KitChecks() {}

  /**
   * Every flag an attachment renders (connector args, defaulted args) at a boundary version of a
   * range ({@link Boundaries}) that the inventory holding that version lacks, or spells with an
   * inline value its dialect refuses: the engine exits on an unknown flag there. Checking only a
   * range's first version misses a flag rendered one release before the release that adds it.
   */
  static List<String> renderedFlagsMissingFromInventories(Engine engine, String dtype) {
    Set<String> missing = new LinkedHashSet<>();
    for (FlagInventory inventory : engine.flagInventories()) {
      boolean inline = inventory.dialect().orElse(engine.dialect()).inlineValues();
      for (String version : Boundaries.within(engine, inventory.versions())) {
        for (RoleKind kind : RoleKind.values()) {
          CacheAttachment attachment = engine.attachment(request(kind, version, dtype));
          for (String token : attachment.connectorArgs()) {
            int eq = token.indexOf('=');
            String flag = eq > 0 ? token.substring(0, eq) : token;
            if (!flag.startsWith("-") || (!flag.startsWith("--") && !knows(inventory, flag))) {
              continue;
            }
            if (!knows(inventory, flag)) {
              missing.add(rendered(flag, "connectorArgs()", kind, version, inventory));
            } else if (eq > 0 && !inline) {
              missing.add(inlineRefused(token, kind, version, inventory));
            }
          }
          for (ArgGroup group : attachment.defaultedArgs()) {
            if (!knows(inventory, group.flag())) {
              missing.add(rendered(group.flag(), "defaultedArgs()", kind, version, inventory));
            }
          }
        }
      }
    }
    return List.copyOf(missing);
  }

  /**
   * Boundary versions a spelling-table row covers that no inventory holds: there the engine may not
   * have the dtype flags at all (a table that starts before the flag exists), and the reader falls
   * back to another range's flags.
   */
  static List<String> spellingRangesBeyondInventories(Engine engine) {
    List<String> out = new ArrayList<>();
    for (DtypeSpellings row : engine.dtypeSpellings().entries()) {
      for (String version : Boundaries.within(engine, row.versions())) {
        EngineVersion v = EngineVersion.parse(version);
        if (engine.flagInventories().stream().noneMatch(i -> i.versions().contains(v))) {
          out.add(
              "dtypeSpellings() for "
                  + row.versions()
                  + " covers engine version "
                  + version
                  + ", but no range of flagInventories() holds it (they cover "
                  + engine.flagInventories().stream()
                      .map(i -> i.versions().toString())
                      .collect(Collectors.joining(", "))
                  + "), so nothing says the engine there has "
                  + String.join(" and ", engine.dtypeFlags())
                  + ": start the spelling row at the first release whose inventory lists every"
                  + " flag of dtypeFlags(), or add an inventory for that release if it has them");
        }
      }
    }
    return out;
  }

  /**
   * The K or V twin of a dtype flag ({@code --cache-type-v} beside {@code --cache-type-k}, {@code
   * -ctv} beside {@code -ctk}) listed in an inventory but not in {@code dtypeFlags()}: it types the
   * other half of the same cache, so a workload passing it would run another type beside the
   * Binding's, unrefused and unrendered.
   */
  static List<String> unownedTwinsOfDtypeFlags(Engine engine) {
    Set<String> out = new LinkedHashSet<>();
    for (FlagInventory inventory : engine.flagInventories()) {
      for (String dtypeFlag : engine.dtypeFlags()) {
        Set<String> twins = new TreeSet<>();
        for (String name : inventory.flag(dtypeFlag).map(FlagSpec::names).orElse(List.of())) {
          twin(name).flatMap(inventory::canonical).ifPresent(twins::add);
        }
        twins.removeAll(engine.dtypeFlags());
        twins.forEach(
            t ->
                out.add(
                    "flagInventories() for "
                        + inventory.versions()
                        + " lists "
                        + t
                        + " ("
                        + String.join(", ", inventory.flag(t).orElseThrow().names())
                        + "), the twin of dtype flag "
                        + dtypeFlag
                        + ", but dtypeFlags() is "
                        + engine.dtypeFlags()
                        + ": the two type the keys and values of one cache, so a workload"
                        + " passing "
                        + t
                        + " runs another type beside the Binding's; list both in"
                        + " dtypeFlags() (dtypeArgs(dtype) then renders both and both are"
                        + " owned)"));
      }
    }
    return List.copyOf(out);
  }

  /**
   * Range ends of every table (spellings, inventories, reports) that the engine's {@code
   * versionScheme()} does not read: a user's version in that scheme is compared with a bound
   * written in another, and orders wrongly.
   */
  static List<String> rangesOutsideTheScheme(Engine engine) {
    VersionScheme scheme = engine.versionScheme();
    List<String> out = new ArrayList<>();
    Map<String, List<? extends Versioned>> tables = new LinkedHashMap<>();
    tables.put("dtypeSpellings()", engine.dtypeSpellings().entries());
    tables.put("flagInventories()", engine.flagInventories());
    tables.put("dtypeReports()", engine.dtypeReports());
    tables.forEach(
        (method, rows) -> {
          for (Versioned row : rows) {
            List<EngineVersion> ends = new ArrayList<>();
            row.versions().from().ifPresent(ends::add);
            row.versions().until().ifPresent(ends::add);
            for (EngineVersion end : ends) {
              if (!scheme.reads(end.raw())) {
                out.add(
                    method
                        + " for "
                        + row.versions()
                        + " is bounded by "
                        + end.raw()
                        + ", which is not "
                        + scheme.description()
                        + ", the scheme versionScheme() declares ("
                        + scheme
                        + "): write the range in that scheme, or return the scheme the engine"
                        + " numbers its releases in from versionScheme()");
              }
            }
          }
        });
    return out;
  }

  /**
   * Reports that declare no fixture reporting a dtype: without an answer captured from the real
   * engine, {@code read(body)} is only ever checked against the module's own {@code
   * sample(spelling)}, which it agrees with by construction.
   */
  static List<String> reportsWithoutFixtures(Engine engine) {
    List<String> out = new ArrayList<>();
    for (DtypeReport report : engine.dtypeReports()) {
      if (report.fixtures().stream().noneMatch(f -> f.reports().isPresent())) {
        out.add(
            "dtypeReports() for "
                + report.versions()
                + " reads "
                + report.path()
                + ", but its fixtures() hold "
                + (report.fixtures().isEmpty() ? "none" : "only answers that report no dtype")
                + ": add a ReportFixture with an answer captured from the real engine (curl of "
                + report.path()
                + " at a release of the range, shipped as a resource in package "
                + report.getClass().getPackageName()
                + ") and the spelling it reports, so read(body) is checked against the engine's"
                + " answer and not only against sample(spelling)");
      }
    }
    return out;
  }

  /**
   * Fixtures that name no source, are not on the classpath, or do not read as they say: {@code
   * read(body)} must read each captured answer as its {@code reports} value.
   */
  static List<String> fixturesThatDoNotReadAsTheySay(Engine engine) {
    List<String> out = new ArrayList<>();
    for (DtypeReport report : engine.dtypeReports()) {
      for (DtypeReport.ReportFixture fixture : report.fixtures()) {
        String where =
            "fixtures() of dtypeReports() for " + report.versions() + " name " + fixture.resource();
        if (fixture.source().isBlank()) {
          out.add(where + " without a source: say which release, command and capture it is");
        }
        Optional<String> body = fixtureBody(engine, report, fixture);
        if (body.isEmpty()) {
          out.add(
              where
                  + ", which is not on the classpath next to "
                  + report.getClass().getName()
                  + " or "
                  + engine.getClass().getName()
                  + ": ship it in src/main/resources under that package, or fix the resource"
                  + " name");
        } else if (!report.read(body.get()).equals(fixture.reports())) {
          out.add(
              where
                  + ", which says it reports "
                  + fixture.reports().orElse("nothing")
                  + ", but read(body) gives "
                  + report.read(body.get()).orElse("nothing")
                  + ": make read(body) read the engine's own answer, or correct the fixture's"
                  + " reports value if the capture says otherwise");
        }
      }
    }
    return out;
  }

  /** A fixture's text: next to the report's class, as its Javadoc says, else the engine's. */
  static Optional<String> fixtureBody(
      Engine engine, DtypeReport report, DtypeReport.ReportFixture fixture) {
    for (Class<?> next : List.of(report.getClass(), engine.getClass())) {
      try (InputStream in = next.getResourceAsStream(fixture.resource())) {
        if (in != null) {
          return Optional.of(new String(in.readAllBytes(), StandardCharsets.UTF_8));
        }
      } catch (IOException e) {
        throw new UncheckedIOException("reading fixture " + fixture.resource(), e);
      }
    }
    return Optional.empty();
  }

  private static boolean knows(FlagInventory inventory, String name) {
    return inventory.canonical(name).isPresent();
  }

  /** {@code --cache-type-v} for {@code --cache-type-k}, {@code -ctk} for {@code -ctv}. */
  private static Optional<String> twin(String name) {
    String stem = name.substring(0, name.length() - 1);
    return switch (name.charAt(name.length() - 1)) {
      case 'k' -> Optional.of(stem + "v");
      case 'v' -> Optional.of(stem + "k");
      default -> Optional.empty();
    };
  }

  /**
   * The dtype, owned and listen flags some version's inventory lacks: the kit reads argv with the
   * inventory, so a flag it lacks is never found (and, where the parser abbreviates, a prefix of it
   * may look unique).
   */
  static List<String> declaredFlagsMissingFromInventories(Engine engine) {
    List<String> missing = new ArrayList<>();
    for (FlagInventory inventory : engine.flagInventories()) {
      for (String flag : engine.dtypeFlags()) {
        if (inventory.flag(flag).isEmpty()) {
          missing.add(declared(flag, "dtypeFlags()", inventory));
        }
      }
      for (String flag : new TreeSet<>(engine.ownedFlags())) {
        if (inventory.flag(flag).isEmpty()) {
          missing.add(declared(flag, "ownedFlags()", inventory));
        }
      }
      for (String flag : engine.listenFlags()) {
        if (inventory.flag(flag).isEmpty()) {
          missing.add(declared(flag, "listenFlags()", inventory));
        }
      }
    }
    return missing;
  }

  /**
   * A flag listed in the inventories before and after a range but not in it: parsers rarely drop a
   * flag for one release and bring it back, so the gap is more likely a flag list read short.
   */
  static List<String> flagsMissingBetweenRanges(Engine engine) {
    List<FlagInventory> all = engine.flagInventories();
    List<String> gaps = new ArrayList<>();
    for (int i = 1; i + 1 < all.size(); i++) {
      for (FlagSpec flag : all.get(i - 1).flags()) {
        String name = flag.name();
        if (all.get(i).flag(name).isEmpty()
            && all.subList(i + 1, all.size()).stream().anyMatch(n -> n.flag(name).isPresent())) {
          gaps.add(
              "flagInventories() lists "
                  + name
                  + " for "
                  + all.get(i - 1).versions()
                  + " and again later, but not for "
                  + all.get(i).versions()
                  + " (source: "
                  + all.get(i).source()
                  + "): add it to that inventory if the release has it; if it really lacks it,"
                  + " split the ranges so the flag's own inventories say so");
        }
      }
    }
    return gaps;
  }

  /**
   * Inventory names the dialect never produces: with underscores read as dashes, the parser knows
   * {@code --kv_cache_dtype} as {@code --kv-cache-dtype}, so an underscored name is never matched.
   */
  static List<String> namesTheDialectCannotRead(Engine engine) {
    List<String> wrong = new ArrayList<>();
    for (FlagInventory inventory : engine.flagInventories()) {
      ArgvDialect dialect = inventory.dialect().orElse(engine.dialect());
      if (!dialect.underscoresAsDashes()) {
        continue;
      }
      for (FlagSpec flag : inventory.flags()) {
        if (flag.name().indexOf('_') > 0) {
          wrong.add(
              "flagInventories() for "
                  + inventory.versions()
                  + " lists "
                  + flag.name()
                  + ", but its dialect ("
                  + dialect.parser()
                  + ") reads underscores as dashes, so the parser knows it as "
                  + "--"
                  + flag.name().substring(2).replace('_', '-')
                  + ": list the dashed name, or give that range a dialect without"
                  + " underscoresAsDashes (FlagInventory.builder().dialect(...), or dialect())");
        }
      }
    }
    return wrong;
  }

  /**
   * How {@link Engine#dtypeArgs} disagrees with {@link Engine#dtypeFlags()}: each flag must be
   * rendered exactly once and nothing else named.
   */
  static List<String> dtypeArgsProblems(Engine engine, String dtype) {
    List<String> problems = new ArrayList<>();
    List<String> args = engine.dtypeArgs(dtype);
    List<String> flags = engine.dtypeFlags();
    if (flags.isEmpty() || !flags.get(0).equals(engine.dtypeFlag())) {
      problems.add(
          "dtypeFlags() is "
              + flags
              + ", but it must start with dtypeFlag() ("
              + engine.dtypeFlag()
              + "), the flag the running dtype is read back from");
    }
    List<String> named = args.stream().filter(a -> a.startsWith("--")).toList();
    if (!named.equals(flags) || args.size() != 2 * flags.size()) {
      problems.add(
          "dtypeArgs("
              + dtype
              + ") renders "
              + args
              + ", but dtypeFlags() is "
              + flags
              + ": render each dtype flag once, followed by its value, and list every flag it"
              + " renders in dtypeFlags() (they are refused when a workload passes them)");
    }
    return problems;
  }

  /**
   * Whether a managed role's base argv starts with one of the declared launches, subcommands
   * included: the injection launch check and the rendered argv must agree on what starts the
   * server.
   */
  static List<String> launchProblems(Engine engine, String model) {
    List<String> problems = new ArrayList<>();
    List<String> base = engine.baseArgv(model);
    Launch launch = Launch.identify(base);
    if (!engine.launchedBy(launch)) {
      problems.add(
          "baseArgv(model) is "
              + base
              + ", read as the program \""
              + launch.program()
              + "\" followed by "
              + launch.arguments()
              + ", but launchPrograms() names "
              + new TreeSet<>(engine.launchPrograms())
              + ": declare the program with the subcommands that start the server (\"lmdeploy"
              + " serve api_server\"), or make baseArgv(model) start with one that is declared");
    }
    for (String entry : engine.launchPrograms()) {
      Launch declared = Launch.identify(List.of(entry.split(" ")));
      if (!declared.startsWith(entry)) {
        problems.add(
            "launchPrograms() names \""
                + entry
                + "\", which reads as the program \""
                + declared.program()
                + "\": name a program as Launch.identify names it (python interpreters as"
                + " \"python\", no directory), then its subcommands");
      }
    }
    return problems;
  }

  /** A version inside {@code inventory}'s range: its first, or 0 for a range open below. */
  static String representative(FlagInventory inventory) {
    return inventory.versions().from().map(Object::toString).orElse("0");
  }

  static AttachmentRequest request(RoleKind kind, String version, String dtype) {
    return AttachmentRequest.builder()
        .roleKind(kind)
        .engineVersion(Optional.of(version))
        .clientEndpoint("mooncake-master.kv.svc:50051")
        .domain(ReuseDomain.builder().name("team-a").blockSize(16).dtype(dtype).build())
        .tenant("team-a")
        .build();
  }

  private static String rendered(
      String flag, String part, RoleKind kind, String version, FlagInventory inventory) {
    return "attachment(request)."
        + part
        + " renders "
        + flag
        + " for a "
        + kind
        + " role at engine version "
        + version
        + ", but flagInventories() has no "
        + flag
        + " for "
        + inventory.versions()
        + ": the engine exits on an unknown flag; render it only when request.engineVersion() is"
        + " a release that has it, or add it to that range's inventory if the release does";
  }

  private static String inlineRefused(
      String token, RoleKind kind, String version, FlagInventory inventory) {
    return "attachment(request).connectorArgs() renders "
        + token
        + " for a "
        + kind
        + " role at engine version "
        + version
        + ", but the dialect for "
        + inventory.versions()
        + " reads no inline values (inlineValues() is false), so the engine refuses the whole"
        + " token: render the flag and its value as two entries";
  }

  private static String declared(String flag, String method, FlagInventory inventory) {
    return method
        + " names "
        + flag
        + ", but flagInventories() has no "
        + flag
        + " for "
        + inventory.versions()
        + " (source: "
        + inventory.source()
        + "): add it to that inventory, or, if that release lacks it, stop declaring it there";
  }
}
