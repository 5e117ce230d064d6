package ai.gpustack.kvcache.attach;

import static ai.gpustack.kvcache.api.Quoting.quote;

import ai.gpustack.kvcache.api.Message;
import ai.gpustack.kvcache.api.Problem;
import ai.gpustack.kvcache.api.ProblemType;
import ai.gpustack.kvcache.spi.Engine;
import ai.gpustack.kvcache.spi.FlagOccurrence;
import ai.gpustack.kvcache.spi.FlagReader;
import ai.gpustack.kvcache.spi.FlagSpec;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Optional;
import java.util.TreeSet;

/**
 * The owned-keys rule, written once: a workload may not pass the flags or set the variables an
 * engine's cache connector owns, nor pass the dtype flags while the dtype is owned (the Setting on
 * and a cache attached); flags that change the KV representation beside the dtype are warned.
 * Deployment admission, Pod injection, {@link KvCacheArgs}, preflight and {@code kvcache explain}
 * all call {@link #check}, so one argv gets one verdict, in one wording, on every road. Pure.
 */
public final class OwnedFlags {
  /** Reason word of a refused connector flag. */
  public static final String CONNECTOR_FLAG_OWNED = "ConnectorFlagOwned";

  /** Reason word of a refused dtype flag. */
  public static final String DTYPE_FLAG_OWNED = "DtypeFlagOwned";

  /** Reason word of a refused connector variable. */
  public static final String ENV_OWNED = "ConnectorEnvOwned";

  /** Reason word of a refused dtype variable. */
  public static final String DTYPE_ENV_OWNED = "DtypeEnvOwned";

  /**
   * Who passes an argv, as refusals name it ({@code role "server"}, {@code container "vllm"}): its
   * command entries, then its args, at their paths in the caller's resource, its variables, and the
   * clause that tells a managed role how to own its flags instead. Immutable.
   */
  public record Subject(
      String display,
      String commandPath,
      List<String> command,
      String argsPath,
      List<String> args,
      List<String> env,
      String envPath,
      String takeOver) {
    public Subject {
      command = List.copyOf(command);
      args = List.copyOf(args);
      env = List.copyOf(env);
    }

    /** A managed role: its {@code extraArgs} and {@code env} under {@code rolePath}. */
    public static Subject role(
        String name, String rolePath, List<String> extraArgs, List<String> env) {
      return new Subject(
          "role " + quote(name),
          "",
          List.of(),
          rolePath + ".extraArgs",
          extraArgs,
          env,
          rolePath + ".env",
          ", or set roles[].command to own the role's whole argv");
    }

    /** A container the webhook injects into: its command, then its args, and its env. */
    public static Subject container(
        String name,
        String containerPath,
        List<String> command,
        List<String> args,
        List<String> env) {
      return new Subject(
          "container " + quote(name),
          containerPath + ".command",
          command,
          containerPath + ".args",
          args,
          env,
          containerPath + ".env",
          "");
    }

    /** Any other argv laid out as a command, then args, at the caller's paths; no variables. */
    public static Subject commandThenArgs(
        String display,
        String commandPath,
        List<String> command,
        String argsPath,
        List<String> args) {
      return new Subject(display, commandPath, command, argsPath, args, List.of(), "", "");
    }

    /** The command, then the args: the argv the engine's parser reads. */
    public List<String> argv() {
      List<String> argv = new ArrayList<>(command);
      argv.addAll(args);
      return argv;
    }

    /** Where entry {@code index} of {@link #argv()} lives; computed for hits only. */
    public String argvPath(int index) {
      return index < command.size()
          ? commandPath + "[" + index + "]"
          : argsPath + "[" + (index - command.size()) + "]";
    }
  }

  /** One owned flag found in an argv: where, as what, and whether it is a dtype flag. */
  public record Hit(FlagOccurrence occurrence, String field, boolean dtype) {
    /** {@link #DTYPE_FLAG_OWNED} or {@link #CONNECTOR_FLAG_OWNED}. */
    public String reason() {
      return dtype ? DTYPE_FLAG_OWNED : CONNECTOR_FLAG_OWNED;
    }
  }

  /** A flag that changes the KV representation, found in an argv, and what it changes. */
  public record KvFormatHit(FlagOccurrence occurrence, String field, String effect) {}

  /**
   * What {@link #check} found: the refusals (field errors carrying their reason), the warnings, and
   * the hits behind them for callers that explain rather than refuse. Immutable.
   */
  public record Verdict(
      List<Problem> refusals, List<String> warnings, List<Hit> hits, List<KvFormatHit> kvFormat) {
    public Verdict {
      refusals = List.copyOf(refusals);
      warnings = List.copyOf(warnings);
      hits = List.copyOf(hits);
      kvFormat = List.copyOf(kvFormat);
    }

    /** The dtype flags found, in argv order. */
    public List<Hit> dtypeHits() {
      return hits.stream().filter(Hit::dtype).toList();
    }
  }

  private OwnedFlags() {}

  /**
   * The verdict on {@code subject}'s argv and env for {@code engine} at {@code version}, as that
   * version's parser reads the argv: each connector flag (in name order) and variable refused;
   * while {@code dtypeOwned}, each dtype flag and dtype variable refused (its value comes from
   * {@code dtypeSource}) and each KV-format flag warned. Ambiguous prefixes of a KV-format flag are
   * left to the parser, which exits on them.
   */
  public static Verdict check(
      Engine engine,
      Optional<String> version,
      Subject subject,
      boolean dtypeOwned,
      String dtypeSource) {
    FlagReader reader = engine.flagReader(version);
    List<String> argv = subject.argv();
    List<Hit> hits = new ArrayList<>();
    for (String flag : new TreeSet<>(engine.ownedFlags())) {
      reader.find(argv, flag).forEach(o -> hits.add(hit(subject, o, false)));
    }
    List<KvFormatHit> kvFormat = new ArrayList<>();
    if (dtypeOwned) {
      for (String flag : engine.dtypeFlags()) {
        reader.find(argv, flag).forEach(o -> hits.add(hit(subject, o, true)));
      }
      for (FlagSpec flag : engine.flagInventory(version).kvFormatFlags()) {
        reader.find(argv, flag.name()).stream()
            .filter(o -> !o.ambiguous())
            .forEach(
                o ->
                    kvFormat.add(
                        new KvFormatHit(
                            o, subject.argvPath(o.index()), flag.kvEffect().orElseThrow())));
      }
      kvFormat.sort(Comparator.comparingInt(h -> h.occurrence().index()));
    }
    List<Problem> refusals = new ArrayList<>();
    for (Hit hit : hits) {
      refusals.add(refusal(engine, subject, hit, dtypeSource));
    }
    for (int k = 0; k < subject.env().size(); k++) {
      String name = subject.env().get(k);
      String field = subject.envPath() + "[" + k + "].name";
      if (dtypeOwned && engine.dtypeEnv().contains(name)) {
        refusals.add(
            envRefusal(
                field,
                name,
                Message.ENV_DTYPE_OWNED.detail(
                    subject.display(), name, quote(engine.id()), dtypeSource, subject.takeOver()),
                DTYPE_ENV_OWNED));
      } else if (engine.ownedEnv().contains(name)) {
        refusals.add(
            envRefusal(
                field,
                name,
                Message.ENV_OWNED.detail(
                    subject.display(), name, quote(engine.id()), subject.takeOver()),
                ENV_OWNED));
      }
    }
    List<String> warnings = new ArrayList<>();
    for (KvFormatHit hit : kvFormat) {
      warnings.add(
          Message.KV_FORMAT_FLAG.detail(
              subject.display() + " (" + hit.field() + ")",
              hit.occurrence().describe(engine.id()),
              hit.effect()));
    }
    return new Verdict(refusals, warnings, hits, kvFormat);
  }

  private static Problem envRefusal(String field, String name, String detail, String reason) {
    return Problem.builder()
        .field(field)
        .type(ProblemType.FORBIDDEN)
        .value(name)
        .detail(detail)
        .reason(reason)
        .build();
  }

  private static Hit hit(Subject subject, FlagOccurrence o, boolean dtype) {
    return new Hit(o, subject.argvPath(o.index()), dtype);
  }

  private static Problem refusal(Engine engine, Subject subject, Hit hit, String dtypeSource) {
    String passes = hit.occurrence().describe(engine.id());
    return Problem.builder()
        .field(hit.field())
        .type(ProblemType.FORBIDDEN)
        .value(hit.occurrence().token().written())
        .detail(
            hit.dtype()
                ? Message.FLAG_DTYPE_OWNED.detail(
                    subject.display(), passes, dtypeSource, subject.takeOver())
                : Message.FLAG_CONNECTOR_OWNED.detail(
                    subject.display(), passes, quote(engine.id()), subject.takeOver()))
        .reason(hit.reason())
        .build();
  }
}
