package ai.gpustack.kvcache.attach;

import ai.gpustack.kvcache.api.EnvVar;
import ai.gpustack.kvcache.api.Problem;
import ai.gpustack.kvcache.api.ProblemType;
import ai.gpustack.kvcache.api.Problems;
import ai.gpustack.kvcache.api.ProblemsException;
import ai.gpustack.kvcache.spi.AttachmentRequest;
import ai.gpustack.kvcache.spi.CacheAttachment;
import ai.gpustack.kvcache.spi.ClientConfigFile;
import ai.gpustack.kvcache.spi.DtypeVerdict;
import ai.gpustack.kvcache.spi.Engine;
import ai.gpustack.kvcache.spi.EngineRegistry;
import ai.gpustack.kvcache.spi.ManagedRole;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;

/**
 * The library's attachment rules for a workload that is not ours: renders the argv, environment and
 * client-config file an engine needs to write a reuse domain's KV cache, and refuses what the
 * reference operator and webhook refuse, worded by the same catalog at the caller's field paths.
 * The dtype is given once, as the domain's. Immutable and thread-safe.
 *
 * <pre>{@code
 * KvCacheArgs kv = KvCacheArgs.of(EngineRegistry.load());
 * KvCacheArgs.Rendered r = kv.managedCommand(WorkloadArgs.builder()
 *     .engine("vLLM").engineVersion("0.11.0").model("qwen/qwen3-8b")
 *     .domain(ReuseDomain.builder().name("team-a").blockSize(16).dtype("bfloat16").build())
 *     .clientEndpoint("mooncake-master.kv.svc:50051").tenant("team-a")
 *     .argsPath("spec.args").build());
 * }</pre>
 */
public final class KvCacheArgs {
  private final EngineRegistry engines;
  private final AttachmentResolver resolver;

  private KvCacheArgs(EngineRegistry engines) {
    this.engines = engines;
    this.resolver = new AttachmentResolver(engines);
  }

  /** Over {@code engines}, usually {@link EngineRegistry#load()}. */
  public static KvCacheArgs of(EngineRegistry engines) {
    return new KvCacheArgs(engines);
  }

  /**
   * What a container gets, or why it gets nothing: the rendered argv (a managed container's whole
   * command, or an injected container's new args), the environment (the workload's own entries with
   * the owned ones written over), the client-config file to mount, the refusals at the caller's
   * field paths, and warnings that do not stop it. Immutable.
   */
  public record Rendered(
      List<String> argv,
      List<EnvVar> env,
      Optional<ClientConfigFile> clientConfig,
      List<Problem> refusals,
      List<String> warnings) {
    public Rendered {
      argv = List.copyOf(argv);
      env = List.copyOf(env);
      refusals = List.copyOf(refusals);
      warnings = List.copyOf(warnings);
    }

    /** Whether nothing stops the workload: {@link #argv()} is what it runs. */
    public boolean attaches() {
      return refusals.isEmpty();
    }

    /**
     * {@link #argv()}, or a {@link ProblemsException} listing every refusal under {@code subject}.
     */
    public List<String> argvOrThrow(String subject) {
      Problems problems = Problems.create();
      refusals.forEach(problems::add);
      problems.throwIfAny(subject);
      return argv;
    }
  }

  /**
   * The whole command of a container the caller builds: the engine's base argv for {@link
   * WorkloadArgs#model()}, the connector args, the dtype args, the workload's own args, defaulted
   * args and the listen fill, exactly as the reference operator renders a managed role.
   */
  public Rendered managedCommand(WorkloadArgs workload) {
    String model =
        workload
            .model()
            .orElseThrow(() -> new IllegalArgumentException("managedCommand needs a model"));
    return render(
        workload,
        (engine, request, attachment) ->
            engine.commandFor(
                ManagedRole.builder()
                    .model(model)
                    .addAllExtraArgs(workload.args())
                    .port(workload.port())
                    .engineVersion(workload.engineVersion())
                    .attachment(request)
                    .build(),
                Optional.of(attachment)));
  }

  /**
   * The new {@code args} of a container the caller did not build (its own {@code command} and
   * {@code args} kept): connector args, defaulted args and the dtype args appended, exactly as the
   * injection webhook patches a Pod.
   */
  public Rendered injectedArgs(WorkloadArgs workload) {
    return render(
        workload,
        (engine, request, attachment) -> {
          List<String> args = new ArrayList<>(workload.args());
          args.addAll(
              engine.appendedArgs(workload.command(), workload.args(), request, attachment));
          return args;
        });
  }

  /**
   * The refusals for the workload's own command and args alone: each flag the engine's connector
   * owns, and each dtype flag while the dtype is owned, at the caller's field path.
   */
  public List<Problem> checkArgs(WorkloadArgs workload) {
    Engine engine = engine(workload);
    return engine == null ? List.of(unknownEngine(workload)) : owned(engine, workload).refusals();
  }

  /** Whether {@code engine} at {@code version} accepts {@code dtype}, and what it accepts. */
  public DtypeVerdict checkDtype(String engine, String dtype, Optional<String> version) {
    return engines.resolve(engine).checkDtype(dtype, version);
  }

  private interface Argv {
    List<String> render(Engine engine, AttachmentRequest request, CacheAttachment attachment);
  }

  private Rendered render(WorkloadArgs workload, Argv argv) {
    Engine engine = engine(workload);
    if (engine == null) {
      return refused(List.of(unknownEngine(workload)), List.of());
    }
    OwnedFlags.Verdict owned = owned(engine, workload);
    List<Problem> refusals = new ArrayList<>(owned.refusals());
    List<String> warnings = new ArrayList<>(owned.warnings());
    Refusal.engineVersionUnread(engine, workload.engineVersionPath(), workload.engineVersion())
        .ifPresent(refusals::add);
    DtypeRuling ruling =
        resolver.rule(
            workload.dtypeSource(),
            workload.domain().dtype(),
            engine,
            workload.engineVersion(),
            workload.settings(),
            why -> why);
    switch (ruling.outcome()) {
      case REJECTED, UNREADABLE ->
          refusals.add(
              Problem.builder()
                  .field(workload.dtypePath())
                  .type(ProblemType.INVALID)
                  .value(workload.domain().dtype())
                  .detail(ruling.message())
                  .reason(ruling.outcome().reason())
                  .build());
      case UNVERIFIED -> warnings.add(ruling.message());
      default -> {}
    }
    if (!refusals.isEmpty()) {
      return refused(refusals, warnings);
    }
    AttachmentRequest request =
        AttachmentRequest.builder()
            .roleKind(workload.roleKind())
            .engineVersion(workload.engineVersion())
            .clientEndpoint(workload.clientEndpoint())
            .domain(workload.domain())
            .tenant(workload.tenant())
            .dtype(ruling.rendered())
            .build();
    CacheAttachment attachment = engine.attachment(request);
    return new Rendered(
        argv.render(engine, request, attachment),
        engine.renderEnv(List.of(), attachment),
        attachment.clientConfig(),
        List.of(),
        warnings);
  }

  private static OwnedFlags.Verdict owned(Engine engine, WorkloadArgs workload) {
    return OwnedFlags.check(
        engine,
        workload.engineVersion(),
        OwnedFlags.Subject.commandThenArgs(
            "the workload",
            workload.commandPath(),
            workload.command(),
            workload.argsPath(),
            workload.args()),
        workload.settings().kvCacheDtypeOwned(),
        workload.dtypeSource());
  }

  private Engine engine(WorkloadArgs workload) {
    return engines.find(workload.engine()).orElse(null);
  }

  private Problem unknownEngine(WorkloadArgs workload) {
    return Refusal.engineNotRegistered(engines, workload.enginePath(), workload.engine());
  }

  private static Rendered refused(List<Problem> refusals, List<String> warnings) {
    return new Rendered(List.of(), List.of(), Optional.empty(), refusals, warnings);
  }
}
