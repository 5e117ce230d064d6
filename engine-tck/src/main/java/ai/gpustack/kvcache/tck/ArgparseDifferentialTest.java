package ai.gpustack.kvcache.tck;

import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import ai.gpustack.kvcache.api.Dtype;
import ai.gpustack.kvcache.api.RoleKind;
import ai.gpustack.kvcache.spi.ArgvDialect;
import ai.gpustack.kvcache.spi.AttachmentRequest;
import ai.gpustack.kvcache.spi.Engine;
import ai.gpustack.kvcache.spi.FlagArity;
import ai.gpustack.kvcache.spi.FlagInventory;
import ai.gpustack.kvcache.spi.FlagOccurrence;
import ai.gpustack.kvcache.spi.FlagReader;
import ai.gpustack.kvcache.spi.FlagSpec;
import ai.gpustack.kvcache.spi.ManagedRole;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Random;
import java.util.Set;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * Checks an argparse-based engine's flag reader against Python's real {@code argparse}, per flag
 * inventory, with that release's own argv preprocessing (underscore and dotted spellings only where
 * its dialect has them): at least {@value #MIN_CASES} generated argv per version range, spelling
 * the dtype flag and every flag that changes the KV format ({@code --config} among them) exact,
 * {@code =value}, as prefixes, ambiguous prefixes, underscores, dotted members, repeats, longer
 * siblings and after a bare {@code --}, must be read the same way; and rendered command lines must
 * parse with the Binding's dtype winning unless a stored role passes its own later. Skipped, saying
 * why, where no {@code python3} runs; a range whose parser is not argparse is not compared.
 *
 * <p>The oracle here builds its parser from the module's own inventory: it proves the reader reads
 * those flags as argparse would, not that the inventory matches the engine's real parser. With the
 * system property {@value #CASES_PROPERTY} naming a folder, the test also writes each range's cases
 * and what the reader read there ({@link CaseDump}); {@code tools/engine-facts/extract.py oracle
 * ENGINE --cases FOLDER} then runs the first and last release of each range's own serve parser (its
 * code, imports stubbed) on the same cases and compares (tools/engine-facts/README.md).
 */
public abstract class ArgparseDifferentialTest {
  static final int MIN_CASES = 10_000;

  /** The system property naming a folder to write the generated cases to. */
  public static final String CASES_PROPERTY = "kvcache.argparse.cases";

  private static final int RANDOM_CASES = 14_000;

  private ArgparseOracle oracle;

  /** The engine under test; its dialect must be argparse-based in at least one range. */
  protected abstract Engine engine();

  @BeforeEach
  void findOracle() {
    assumeTrue(
        engine().flagInventories().stream().anyMatch(i -> argparse(dialect(i))),
        () -> engine().id() + " does not parse with argparse: " + engine().dialect().parser());
    Optional<ArgparseOracle> found = ArgparseOracle.find();
    assumeTrue(found.isPresent(), "python3 is not on the PATH; the argparse oracle needs it");
    oracle = found.get();
  }

  @Test
  void the_flag_reader_agrees_with_argparse_on_every_generated_argv() {
    List<String> mismatches = new ArrayList<>();
    List<String> counts = new ArrayList<>();
    String python = "";
    CaseDump dump = CaseDump.fromProperty(CASES_PROPERTY);
    int range = 0;
    for (FlagInventory inventory : engine().flagInventories()) {
      range++;
      ArgvDialect dialect = dialect(inventory);
      if (!argparse(dialect)) {
        continue;
      }
      List<FlagSpec> targets = targets(inventory);
      List<String> names = targets.stream().map(FlagSpec::name).toList();
      List<List<String>> cases =
          cases(inventory, names, new Random(inventory.versions().hashCode()));
      ArgparseOracle.Answer answer = oracle.parse(inventory, dialect, names, cases);
      python = answer.pythonVersion();
      FlagReader reader = new FlagReader(dialect, inventory);
      if (dump != null) {
        dump.write(engine().id(), range, inventory, dialect, targets, cases, reader);
      }
      int comparable = 0;
      for (int i = 0; i < cases.size(); i++) {
        boolean compared = false;
        for (FlagSpec target : targets) {
          Optional<String> mismatch =
              compare(reader, target, cases.get(i), answer.verdicts().get(i));
          if (mismatch == null) {
            continue;
          }
          compared = true;
          mismatch.ifPresent(m -> mismatches.add(inventory.versions() + " " + m));
        }
        comparable += compared ? 1 : 0;
      }
      assertThat(comparable)
          .as("argv compared for %s", inventory.versions())
          .isGreaterThanOrEqualTo(MIN_CASES);
      counts.add(inventory.versions() + ": " + comparable);
    }
    System.out.printf(
        "%s: argv compared with Python %s argparse per range (%s), %d disagreements%n",
        engine().id(), python, String.join("; ", counts), mismatches.size());
    assertThat(mismatches).isEmpty();
  }

  @Test
  void a_rendered_command_line_parses_with_the_bindings_dtype_winning() {
    List<String> targets = engine().dtypeFlags();
    String dtype = sampleDtype();
    Map<String, String> bindings = values(engine().dtypeArgs(dtype));
    for (FlagInventory inventory : engine().flagInventories()) {
      ArgvDialect dialect = dialect(inventory);
      if (!argparse(dialect)) {
        continue;
      }
      // a version of this range, also for one open below (none would render the newest)
      String at = KitChecks.representative(inventory);
      Optional<String> version = Optional.of(at);
      List<List<String>> cases = new ArrayList<>();
      List<Map<String, String>> expected = new ArrayList<>();
      cases.add(options(command(List.of(), at, dtype)));
      expected.add(bindings);
      FlagReader reader = new FlagReader(dialect, inventory);
      for (String target : targets) {
        for (String own : ownSpellings(reader, inventory, target)) {
          List<String> extra = own.contains("=") ? List.of(own) : List.of(own, "own");
          cases.add(options(command(extra, at, dtype)));
          Map<String, String> wins = new LinkedHashMap<>(bindings);
          wins.put(target, "own");
          expected.add(wins);
        }
      }
      AttachmentRequest request = KitChecks.request(RoleKind.Server, at, dtype);
      List<String> theirs = new ArrayList<>();
      targets.forEach(t -> theirs.addAll(List.of(t, "theirs")));
      List<String> injected = new ArrayList<>(theirs);
      injected.addAll(
          engine().appendedArgs(List.of(), theirs, request, engine().attachment(request)));
      cases.add(options(injected));
      expected.add(bindings);
      ArgparseOracle.Answer answer = oracle.parse(inventory, dialect, targets, cases);
      for (int i = 0; i < cases.size(); i++) {
        for (String target : targets) {
          assertThat(answer.verdicts().get(i).value(target))
              .as("argparse reads %s in %s for %s", target, cases.get(i), inventory.versions())
              .contains(expected.get(i).get(target));
        }
      }
    }
  }

  /** Each flag of {@code args} ({@code --flag value ...}) with the value after it. */
  private static Map<String, String> values(List<String> args) {
    Map<String, String> values = new LinkedHashMap<>();
    for (int i = 0; i + 1 < args.size(); i += 2) {
      values.put(args.get(i), args.get(i + 1));
    }
    return values;
  }

  private ArgvDialect dialect(FlagInventory inventory) {
    return inventory.dialect().orElse(engine().dialect());
  }

  private static boolean argparse(ArgvDialect dialect) {
    return dialect.parser().contains("argparse");
  }

  /** The dtype flags and every flag that changes the KV format. */
  private List<FlagSpec> targets(FlagInventory inventory) {
    List<FlagSpec> targets = new ArrayList<>();
    engine().dtypeFlags().forEach(f -> targets.add(inventory.flag(f).orElseThrow()));
    targets.addAll(inventory.kvFormatFlags());
    return targets;
  }

  /** The exact flag, its inline form, and every unique prefix and underscore spelling of it. */
  private List<String> ownSpellings(FlagReader reader, FlagInventory inventory, String target) {
    List<String> own = new ArrayList<>(List.of(target, target + "=own"));
    for (String spelling : spellings(inventory.flags(), List.of(target))) {
      if (!spelling.equals(target)
          && reader.read(spelling).map(t -> t.readsAs(target)).orElse(false)) {
        own.add(spelling);
      }
    }
    return own;
  }

  /**
   * Null when the case does not bear on {@code target}; else empty when reader and argparse agree.
   * A value flag is compared by the value it ends with, a toggle or a list by whether it is set.
   */
  private static Optional<String> compare(
      FlagReader reader, FlagSpec target, List<String> argv, ArgparseOracle.Verdict verdict) {
    String flag = target.name();
    List<String> parsed = reader.asParsed(argv);
    List<FlagOccurrence> found = reader.find(parsed, flag);
    switch (verdict.kind()) {
      case "value" -> {
        return compareValue(reader, target, argv, parsed, found, verdict);
      }
      case "missing" -> {
        if (!verdict.detail().equals(flag)) {
          return null;
        }
        boolean ours = found.stream().anyMatch(o -> !o.ambiguous() && o.value().isEmpty());
        return ours
            ? Optional.empty()
            : Optional.of(argv + ": argparse finds " + flag + " without a value, reader does not");
      }
      case "ambiguous" -> {
        if (!verdict.candidates().contains(flag)) {
          return null;
        }
        Set<String> theirs = new HashSet<>(verdict.candidates());
        boolean ours =
            found.stream()
                .anyMatch(
                    o -> o.ambiguous() && new HashSet<>(o.token().candidates()).equals(theirs));
        return ours
            ? Optional.empty()
            : Optional.of(
                argv + ": argparse says ambiguous among " + theirs + ", reader found " + found);
      }
      default -> {
        return null;
      }
    }
  }

  /** A value verdict: what argparse sets {@code target} to, or whether it sets it at all. */
  private static Optional<String> compareValue(
      FlagReader reader,
      FlagSpec target,
      List<String> argv,
      List<String> parsed,
      List<FlagOccurrence> found,
      ArgparseOracle.Verdict verdict) {
    String flag = target.name();
    boolean ambiguous = found.stream().anyMatch(FlagOccurrence::ambiguous);
    Optional<String> theirs = verdict.value(flag);
    if (target.arity() == FlagArity.ONE) {
      Optional<String> ours = reader.lastValue(argv, flag);
      if (ambiguous || !ours.equals(theirs)) {
        return Optional.of(
            argv
                + ": argparse sets "
                + flag
                + " to "
                + theirs
                + ", reader says "
                + ours
                + (ambiguous ? " and ambiguous" : ""));
      }
      return Optional.empty();
    }
    boolean ours = reader.names(parsed, flag);
    if (ambiguous || ours != theirs.isPresent()) {
      return Optional.of(
          argv
              + ": argparse "
              + (theirs.isPresent() ? "sets " : "does not set ")
              + flag
              + ", reader "
              + (ours ? "finds it" : "does not")
              + (ambiguous ? " and ambiguous" : ""));
    }
    return Optional.empty();
  }

  /** Spellings argparse might read as one of {@code targets}, and many it must not. */
  private static List<String> spellings(List<FlagSpec> inventory, List<String> targets) {
    Set<String> s = new LinkedHashSet<>();
    for (String target : targets) {
      List<String> names = new ArrayList<>();
      names.add(target);
      for (int end = 3; end < target.length(); end++) {
        names.add(target.substring(0, end));
      }
      for (FlagSpec flag : inventory) {
        if (flag.name().regionMatches(0, target, 0, 3)) {
          names.add(flag.name());
          names.add(flag.name() + "-extra");
        }
      }
      for (String name : names) {
        s.add(name);
        s.add("--" + name.substring(2).replace('-', '_'));
        int dash = name.indexOf('-', 2);
        if (dash > 0) {
          s.add(name.substring(0, dash) + "_" + name.substring(dash + 1));
        }
        s.add(name + ".member");
      }
      s.add(target.toUpperCase(java.util.Locale.ROOT));
      s.add(target.substring(1));
      s.add(target + " x");
    }
    return new ArrayList<>(s);
  }

  private static List<List<String>> cases(
      FlagInventory inventory, List<String> targets, Random random) {
    List<String> spellings = spellings(inventory.flags(), targets);
    List<List<String>> cases = new ArrayList<>();
    int[] value = {0};
    for (String spelling : spellings) {
      cases.add(List.of(spelling, "v" + value[0]++));
      cases.add(List.of(spelling + "=v" + value[0]++));
      cases.add(List.of("--host", "h", spelling));
    }
    List<List<String>> fillers =
        List.of(
            List.of("model"),
            List.of("--host", "0.0.0.0"),
            List.of("--port", "8000"),
            List.of("--"));
    for (int n = 0; n < RANDOM_CASES; n++) {
      List<String> argv = new ArrayList<>();
      int items = 1 + random.nextInt(4);
      for (int i = 0; i < items; i++) {
        if (random.nextInt(4) == 0) {
          argv.addAll(fillers.get(random.nextInt(fillers.size())));
        } else {
          String spelling = spellings.get(random.nextInt(spellings.size()));
          if (random.nextBoolean()) {
            argv.add(spelling + "=v" + value[0]++);
          } else {
            argv.add(spelling);
            argv.add("v" + value[0]++);
          }
        }
      }
      cases.add(argv);
    }
    return cases;
  }

  private String sampleDtype() {
    return engine().dtypeSpellings().newest().spellings().stream()
        .filter(s -> !s.equals(Dtype.AUTO))
        .filter(s -> !engine().leavesModelDtype(s, Optional.empty()))
        .findFirst()
        .orElseThrow();
  }

  private List<String> command(List<String> extraArgs, String version, String dtype) {
    AttachmentRequest request = KitChecks.request(RoleKind.Server, version, dtype);
    return engine()
        .commandFor(
            ManagedRole.builder()
                .model("org/model")
                .addAllExtraArgs(extraArgs)
                .engineVersion(version)
                .attachment(request)
                .build(),
            Optional.of(engine().attachment(request)));
  }

  /** The argv from its first option on: what the parser sees after the program and subcommand. */
  private static List<String> options(List<String> argv) {
    int first = 0;
    while (first < argv.size() && !argv.get(first).startsWith("--")) {
      first++;
    }
    return argv.subList(first, argv.size());
  }
}
