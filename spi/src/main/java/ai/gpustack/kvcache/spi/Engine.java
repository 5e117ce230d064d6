package ai.gpustack.kvcache.spi;

import ai.gpustack.kvcache.api.EnvVar;
import ai.gpustack.kvcache.api.KvFormat;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.Set;

/**
 * An inference engine this project can attach to a KV cache pool. Implementations are stateless,
 * thread-safe and deterministic (the same input renders the same argv), depend on {@code api} and
 * {@code spi} only, and are registered with one {@code @AutoService(Engine.class)} provider.
 *
 * <p>The order of a rendered argv is fixed here, not by engines: a managed role's command is base
 * argv, connector args, the dtype args, {@code extraArgs}, defaulted args the argv does not name,
 * then the listen fill; an injected container's args end with connector args, defaulted args and
 * the dtype args last. New methods are only ever added as {@code default} methods.
 */
public interface Engine {
  /**
   * The flag every engine in this project reads the KV-cache dtype from, unless it says otherwise.
   */
  String KV_CACHE_DTYPE = "--kv-cache-dtype";

  /**
   * The id users write in {@code spec.engine.name} and the {@code kvcache.gpustack.ai/engine}
   * annotation, matched case-insensitively: letters, digits, {@code .}, {@code _} or {@code -},
   * starting with a letter.
   */
  String id();

  /** The name people know the engine by. */
  default String displayName() {
    return id();
  }

  /** The Maven coordinates of the module that provides this engine ({@code group:artifact}). */
  String artifact();

  /** The engine's KV-cache dtype flag, canonical: the one its running dtype is read back from. */
  default String dtypeFlag() {
    return KV_CACHE_DTYPE;
  }

  /**
   * Every flag the Binding's dtype is rendered into, canonical, {@link #dtypeFlag()} first: all of
   * them are owned while the dtype is (a workload naming any is refused). An engine that reads its
   * keys' and values' types from two flags (llama.cpp's {@code --cache-type-k} and {@code
   * --cache-type-v}) lists both.
   */
  default List<String> dtypeFlags() {
    return List.of(dtypeFlag());
  }

  /**
   * The argv entries that hand {@code dtype} to the engine: each of {@link #dtypeFlags()} followed
   * by the dtype, in that order. {@code dtype} is already the engine's value ({@link
   * #engineValue}): translate in the spelling table, not here. Deterministic; every flag it names
   * is one of {@link #dtypeFlags()}.
   */
  default List<String> dtypeArgs(String dtype) {
    List<String> args = new ArrayList<>();
    dtypeFlags().forEach(flag -> args.addAll(List.of(flag, dtype)));
    return List.copyOf(args);
  }

  /** The dtype spellings the engine's parser accepts, per version range, with sources. */
  SpellingTable dtypeSpellings();

  /**
   * How the engine numbers its releases: what {@code spec.engine.version} must be (a version the
   * scheme does not read is refused at admission) and what every version range here is written in.
   */
  default VersionScheme versionScheme() {
    return VersionScheme.PEP440;
  }

  /**
   * The value the engine's parser is given for the Binding's {@code dtype} at {@code version}: its
   * spelling table's translation ({@code bfloat16} → {@code bf16} on llama.cpp), else the dtype.
   */
  default String engineValue(String dtype, Optional<String> version) {
    return dtypeSpellings()
        .forVersion(version)
        .entry()
        .map(e -> e.engineValue(dtype))
        .orElse(dtype);
  }

  /**
   * The Binding spelling a value read off a running replica ({@code bf16}) stands for at {@code
   * version}; the value itself when the table does not know it, so a mismatch stays visible.
   */
  default String bindingSpelling(String value, Optional<String> version) {
    return dtypeSpellings()
        .forVersion(version)
        .entry()
        .flatMap(e -> e.bindingSpelling(value))
        .orElse(value);
  }

  /** How the engine's parser reads flags, unless a version's inventory says otherwise. */
  ArgvDialect dialect();

  /** How the engine's parser reads flags at {@code version}: its inventory's dialect, if any. */
  default ArgvDialect dialect(Optional<String> version) {
    return flagInventory(version).dialect().orElse(dialect());
  }

  /** The long options the parser knows, per version range, oldest first. */
  List<FlagInventory> flagInventories();

  /** The argv a managed role starts with: the program and the model. */
  List<String> baseArgv(String model);

  /** The image a role runs when it names none; empty means the role must name one. */
  default Optional<String> defaultImage(Optional<String> version) {
    return Optional.empty();
  }

  /** The port the engine serves on when the role declares none. */
  int defaultPort();

  /** The flags the listen fill adds when absent: host first, then port. */
  default List<String> listenFlags() {
    return List.of("--host", "--port");
  }

  /** The engine-specific pieces of a cache attachment. */
  CacheAttachment attachment(AttachmentRequest request);

  /**
   * Flags the operator always owns on this engine (its cache connector); a role's {@code extraArgs}
   * naming one is refused. The dtype flag is owned only while the Setting is on and is not listed
   * here.
   */
  Set<String> ownedFlags();

  /** Environment variables the operator owns on this engine (its cache client's), always. */
  Set<String> ownedEnv();

  /**
   * Environment variables the engine reads its KV-cache dtype from (llama.cpp's {@code
   * LLAMA_ARG_CACHE_TYPE_K} and {@code _V}): owned while the dtype is, like {@link #dtypeFlags()},
   * so a workload setting one is refused then and left alone otherwise.
   */
  default Set<String> dtypeEnv() {
    return Set.of();
  }

  /**
   * The programs that are this engine's entry points, as {@link Launch#program()} names them,
   * followed by the subcommands that start the server where the program has several: {@code vllm
   * serve}, {@code python -m sglang.launch_server}, {@code lmdeploy serve api_server}.
   */
  Set<String> launchPrograms();

  /**
   * The inventory for {@code version}: its range's, the newest when absent, the oldest before all.
   */
  default FlagInventory flagInventory(Optional<String> version) {
    List<FlagInventory> all = flagInventories();
    return Versioned.select(all, version).entry().orElse(all.get(0));
  }

  /** Reads argv the way this engine's parser does at {@code version}. */
  default FlagReader flagReader(Optional<String> version) {
    FlagInventory inventory = flagInventory(version);
    return new FlagReader(inventory.dialect().orElse(dialect()), inventory);
  }

  /**
   * {@code checkDtype(dtype, version).accepted()} without building the verdict: the question every
   * admitted Pod asks.
   */
  default boolean acceptsDtype(String dtype, Optional<String> version) {
    return dtypeSpellings().forVersion(version).entry().map(e -> e.accepts(dtype)).orElse(false);
  }

  /**
   * The KV format {@code dtype} stores on this engine at {@code version}, on its default platform;
   * empty when the engine does not accept the spelling there or its module does not map it.
   */
  default Optional<KvFormat> kvFormat(String dtype, Optional<String> version) {
    return dtypeSpellings().forVersion(version).entry().flatMap(e -> e.format(dtype));
  }

  /** Whether this engine at {@code version} accepts {@code dtype}, and what it accepts instead. */
  default DtypeVerdict checkDtype(String dtype, Optional<String> version) {
    Versioned.Lookup<DtypeSpellings> lookup = dtypeSpellings().forVersion(version);
    DtypeVerdict.Builder verdict =
        DtypeVerdict.builder().engine(id()).dtype(dtype).table(lookup.basis());
    lookup
        .entry()
        .ifPresentOrElse(
            e ->
                verdict
                    .accepted(e.accepts(dtype))
                    .addAllSpellings(e.spellings())
                    .source(e.source()),
            () -> verdict.accepted(false));
    return verdict.build();
  }

  /**
   * Where the engine reports the KV-cache dtype it runs, per version range, oldest first; empty
   * when it reports none, and every replica then reads as not reported.
   */
  default List<DtypeReport> dtypeReports() {
    return List.of();
  }

  /** The report of {@code version}'s range; empty when the engine reports none there. */
  default Optional<DtypeReport> dtypeReport(Optional<String> version) {
    List<DtypeReport> reports = dtypeReports();
    return reports.isEmpty() ? Optional.empty() : Versioned.select(reports, version).entry();
  }

  /** Whether {@code launch} is one of this engine's entry points, subcommands included. */
  default boolean launchedBy(Launch launch) {
    return launchPrograms().stream().anyMatch(launch::startsWith);
  }

  /**
   * Whether {@code dtype} leaves the KV cache at the model's own dtype on this engine at {@code
   * version}, as {@code auto} does: its spelling table maps it to {@link KvFormat#MODEL_DEPENDENT}.
   * A Binding declaring such a value binds nothing, so a new one is refused while the dtype is
   * owned.
   */
  default boolean leavesModelDtype(String dtype, Optional<String> version) {
    return kvFormat(dtype, version).filter(KvFormat.MODEL_DEPENDENT::equals).isPresent();
  }

  /**
   * The whole command of a managed role: the base argv, {@code attachment}'s connector args, the
   * request's dtype args, the role's extra args, defaulted args the role does not name, and the
   * listen flags it does not pass. {@code attachment} is {@link #attachment(AttachmentRequest)
   * attachment(role.attachment())}, built once by the caller, which needs it for the env and the
   * config file too; both are absent without a store.
   */
  default List<String> commandFor(ManagedRole role, Optional<CacheAttachment> attachment) {
    if (role.attachment().isPresent() != attachment.isPresent()) {
      throw new IllegalArgumentException("an attachment is rendered with its request");
    }
    FlagReader reader = flagReader(role.engineVersion());
    List<String> argv = new ArrayList<>(baseArgv(role.model()));
    attachment.ifPresent(a -> argv.addAll(a.connectorArgs()));
    role.attachment()
        .flatMap(AttachmentRequest::dtype)
        .ifPresent(d -> argv.addAll(dtypeArgs(engineValue(d.value(), role.engineVersion()))));
    argv.addAll(role.extraArgs());
    attachment.ifPresent(a -> appendDefaulted(reader, argv, argv, a.defaultedArgs()));
    List<String> listen = listenFlags();
    if (!reader.names(argv, listen.get(0))) {
      argv.addAll(List.of(listen.get(0), "0.0.0.0"));
    }
    if (!reader.names(argv, listen.get(1))) {
      argv.addAll(List.of(listen.get(1), Integer.toString(role.port().orElse(defaultPort()))));
    }
    return List.copyOf(argv);
  }

  /**
   * What injection appends to a container's {@code args}, and only that: connector args, defaulted
   * args neither {@code command} nor {@code args} names, and the dtype args last. The engine
   * version is the request's; {@code attachment} is {@link #attachment(AttachmentRequest)
   * attachment(request)}, built once by the caller.
   */
  default List<String> appendedArgs(
      List<String> command,
      List<String> args,
      AttachmentRequest request,
      CacheAttachment attachment) {
    List<String> out = new ArrayList<>(attachment.connectorArgs());
    List<String> seen = new ArrayList<>(command);
    seen.addAll(args);
    seen.addAll(out);
    appendDefaulted(flagReader(request.engineVersion()), seen, out, attachment.defaultedArgs());
    request
        .dtype()
        .ifPresent(d -> out.addAll(dtypeArgs(engineValue(d.value(), request.engineVersion()))));
    return List.copyOf(out);
  }

  /**
   * The whole command of a managed role.
   *
   * @deprecated use {@link #commandFor}, which takes the attachment built once; removed in the next
   *     release
   */
  @Deprecated(forRemoval = true)
  default List<String> renderCommand(ManagedRole role) {
    return commandFor(role, role.attachment().map(this::attachment));
  }

  /**
   * The args of an injected container: its own, then {@link #appendedArgs}.
   *
   * @deprecated use {@link #appendedArgs}, which returns only what it adds and reads the version
   *     from the request; removed in the next release
   */
  @Deprecated(forRemoval = true)
  default List<String> renderInjectedArgs(
      List<String> command,
      List<String> args,
      Optional<String> version,
      AttachmentRequest request,
      CacheAttachment attachment) {
    List<String> out = new ArrayList<>(args);
    out.addAll(
        appendedArgs(
            command,
            args,
            AttachmentRequest.copyOf(request).withEngineVersion(version),
            attachment));
    return List.copyOf(out);
  }

  /** The environment of an attached container: owned entries win, defaulted ones fill gaps. */
  default List<EnvVar> renderEnv(List<EnvVar> declared, CacheAttachment attachment) {
    List<EnvVar> out = new ArrayList<>();
    Set<String> owned =
        attachment.env().stream().map(EnvVar::name).collect(java.util.stream.Collectors.toSet());
    declared.stream().filter(e -> !owned.contains(e.name())).forEach(out::add);
    out.addAll(attachment.env());
    attachment.defaultedEnv().stream()
        .filter(d -> out.stream().noneMatch(e -> e.name().equals(d.name())))
        .forEach(out::add);
    return List.copyOf(out);
  }

  private static void appendDefaulted(
      FlagReader reader, List<String> seen, List<String> target, List<ArgGroup> defaulted) {
    for (ArgGroup group : defaulted) {
      if (!reader.names(seen, group.flag())) {
        target.addAll(group.tokens());
        if (seen != target) {
          seen.addAll(group.tokens());
        }
      }
    }
  }
}
