package ai.gpustack.kvcache.tck;

import ai.gpustack.kvcache.api.ReuseDomain;
import ai.gpustack.kvcache.api.RoleKind;
import ai.gpustack.kvcache.spi.ArgGroup;
import ai.gpustack.kvcache.spi.ArgvDialect;
import ai.gpustack.kvcache.spi.AttachmentRequest;
import ai.gpustack.kvcache.spi.CacheAttachment;
import ai.gpustack.kvcache.spi.Engine;
import ai.gpustack.kvcache.spi.FlagInventory;
import ai.gpustack.kvcache.spi.FlagSpec;
import ai.gpustack.kvcache.spi.Launch;
import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Optional;
import java.util.Set;
import java.util.TreeSet;

/**
 * Checks of a module's declarations against each other. Each returns one line per problem, saying
 * what the module declared, what the kit expected and which method to change; empty when the module
 * is consistent.
 */
final class KitChecks {
  private KitChecks() {}

  /**
   * Every flag an attachment renders for a version (connector args, defaulted args) that the
   * inventory of that version's range lacks: the engine exits on an unknown flag there.
   */
  static List<String> renderedFlagsMissingFromInventories(Engine engine, String dtype) {
    Set<String> missing = new LinkedHashSet<>();
    for (FlagInventory inventory : engine.flagInventories()) {
      String version = representative(inventory);
      for (RoleKind kind : RoleKind.values()) {
        CacheAttachment attachment = engine.attachment(request(kind, version, dtype));
        for (String token : attachment.connectorArgs()) {
          String flag = token.contains("=") ? token.substring(0, token.indexOf('=')) : token;
          if (flag.startsWith("--") && inventory.flag(flag).isEmpty()) {
            missing.add(rendered(flag, "connectorArgs()", kind, version, inventory));
          }
        }
        for (ArgGroup group : attachment.defaultedArgs()) {
          if (inventory.flag(group.flag()).isEmpty()) {
            missing.add(rendered(group.flag(), "defaultedArgs()", kind, version, inventory));
          }
        }
      }
    }
    return List.copyOf(missing);
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
