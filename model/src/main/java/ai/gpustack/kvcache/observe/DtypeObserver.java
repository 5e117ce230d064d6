package ai.gpustack.kvcache.observe;

import static ai.gpustack.kvcache.api.Quoting.quote;
import static java.util.concurrent.CompletableFuture.completedFuture;

import ai.gpustack.kvcache.api.Dtype;
import ai.gpustack.kvcache.api.Quoting;
import ai.gpustack.kvcache.cluster.ClusterView;
import ai.gpustack.kvcache.resources.Keys;
import ai.gpustack.kvcache.resources.ModelDeployment;
import ai.gpustack.kvcache.resources.Pods;
import ai.gpustack.kvcache.spi.DtypeReport;
import ai.gpustack.kvcache.spi.Engine;
import ai.gpustack.kvcache.spi.EngineRegistry;
import ai.gpustack.kvcache.spi.FlagReader;
import io.fabric8.kubernetes.api.model.Container;
import io.fabric8.kubernetes.api.model.OwnerReference;
import io.fabric8.kubernetes.api.model.Pod;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.regex.Pattern;

/**
 * Reads one replica: the dtype its argv hands the engine, as the engine's parser reads it at its
 * version (last occurrence, every spelling), and the dtype the engine reports on its own endpoint,
 * through {@code fetcher}; then judges the report against the Binding by KV format, so a synonym
 * ({@code bf16} for {@code bfloat16} on SGLang) matches. The Setting is not applied here (see
 * {@link Observation#unowned()}), so what was read stays true when it flips. A report that is not
 * shaped like a dtype is not believed. Asynchronous and thread-safe.
 */
public final class DtypeObserver {
  /**
   * What a reported dtype must look like to be believed: every spelling any engine accepts does,
   * and a value that does not is an engine (or something posing as one) saying something else.
   */
  private static final Pattern SPELLING = Pattern.compile("[a-z0-9_]{1," + Dtype.MAX_LENGTH + "}");

  /** How much of a value from a Pod's argv is kept: a dtype spelling fits whole. */
  private static final int SHOWN_VALUE = 64;

  private final EngineRegistry engines;
  private final ReportFetcher fetcher;

  public DtypeObserver(EngineRegistry engines, ReportFetcher fetcher) {
    this.engines = engines;
    this.fetcher = fetcher;
  }

  /** A replica the operator built for {@code md}. */
  public CompletableFuture<Observation> managed(ModelDeployment md, Pod pod, ClusterView cluster) {
    String binding = md.getSpec().kvCache().map(k -> k.poolRef().name()).orElse("");
    return observe(
        pod,
        "ModelDeployment/" + md.getMetadata().getName(),
        md.getSpec().engine().name(),
        md.getSpec().engine().version(),
        binding,
        cluster);
  }

  /** A Pod the webhook injected; its engine, version and Binding come from its annotations. */
  public CompletableFuture<Observation> injected(Pod pod, ClusterView cluster) {
    List<OwnerReference> owners = pod.getMetadata().getOwnerReferences();
    String owner =
        owners == null || owners.isEmpty()
            ? "Pod/" + pod.getMetadata().getName()
            : owners.get(0).getKind() + "/" + owners.get(0).getName();
    return observe(
        pod,
        owner,
        Pods.annotation(pod, Keys.ENGINE).orElse(""),
        Pods.annotation(pod, Keys.ENGINE_VERSION),
        Pods.annotation(pod, Keys.BINDING).orElse(""),
        cluster);
  }

  private CompletableFuture<Observation> observe(
      Pod pod,
      String owner,
      String engineName,
      Optional<String> version,
      String bindingName,
      ClusterView cluster) {
    String namespace = pod.getMetadata().getNamespace();
    String bindingDtype =
        cluster
            .binding(namespace, bindingName)
            .filter(b -> b.getSpec() != null)
            .map(b -> b.getSpec().domain().dtype())
            .orElse("");
    Optional<Engine> found = engines.find(engineName);
    Result result = new Result(namespace, pod, owner, engineName, bindingName, bindingDtype);
    if (found.isEmpty()) {
      return completedFuture(
          result.notReported(
              Optional.empty(), "engine " + quote(engineName, 64) + " is not registered", true));
    }
    Engine engine = found.get();
    List<String> argv = argv(pod);
    FlagReader reader = engine.flagReader(version);
    Handed handed = Handed.read(engine, reader, argv, version);
    Optional<String> argvDtype = handed.shown();
    String engineAt = engine.id() + version.map(v -> " " + Quoting.printable(v, 64)).orElse("");
    Result known = result.withEngine(engineAt);
    Optional<String> odd = handed.mixed(result.bindingDtype());
    if (odd.isPresent()) {
      // Keys and values in two formats: no report can make that the Binding's one format.
      return completedFuture(
          known.observed(argvDtype, odd.get(), "argv: " + argvDtype.get(), Verdict.DIFFERS));
    }
    Optional<DtypeReport> report = engine.dtypeReport(version);
    if (report.isEmpty()) {
      return completedFuture(
          known.notReported(argvDtype, engineAt + " reports no KV-cache dtype", true));
    }
    int port = listenPort(engine, reader, argv);
    String source = "GET :" + port + report.get().path();
    return fetcher
        .fetch(pod, port, report.get().path())
        .thenApply(fetch -> judge(known, engine, version, report.get(), argvDtype, source, fetch));
  }

  private static Observation judge(
      Result known,
      Engine engine,
      Optional<String> version,
      DtypeReport report,
      Optional<String> argvDtype,
      String source,
      Fetch fetch) {
    if (fetch.body().isEmpty()) {
      return known.notReported(argvDtype, source + ": " + fetch.detail(), false);
    }
    Optional<String> observed =
        report.read(fetch.body().get()).map(v -> engine.bindingSpelling(v, version));
    if (observed.isEmpty()) {
      return known.notReported(argvDtype, source + ": the answer carries no KV-cache dtype", true);
    }
    if (!SPELLING.matcher(observed.get()).matches()) {
      return known.notReported(
          argvDtype,
          source
              + ": the answer's dtype "
              + quote(observed.get(), 40)
              + " is not a dtype spelling (1 to "
              + Dtype.MAX_LENGTH
              + " of a-z, 0-9 and _)",
          true);
    }
    Verdict verdict =
        sameFormat(engine, version, observed.get(), known.bindingDtype())
            ? Verdict.MATCHES
            : Verdict.DIFFERS;
    return known.observed(argvDtype, observed.get(), source, verdict);
  }

  /** Whether two spellings are one, or store one format on {@code engine} at {@code version}. */
  private static boolean sameFormat(
      Engine engine, Optional<String> version, String observed, String declared) {
    if (observed.equals(declared)) {
      return true;
    }
    Optional<?> a = engine.kvFormat(observed, version);
    return a.isPresent() && a.equals(engine.kvFormat(declared, version));
  }

  /**
   * The engine container's command and args: the one the injection annotation names, or the first.
   */
  public static List<String> argv(Pod pod) {
    List<Container> containers =
        pod.getSpec() == null || pod.getSpec().getContainers() == null
            ? List.of()
            : pod.getSpec().getContainers();
    Optional<String> named = Pods.annotation(pod, Keys.CONTAINER);
    Optional<Container> container =
        named.isPresent()
            ? containers.stream().filter(c -> Objects.equals(c.getName(), named.get())).findFirst()
            : containers.stream().findFirst();
    List<String> argv = new ArrayList<>();
    container.ifPresent(
        c -> {
          if (c.getCommand() != null) {
            argv.addAll(c.getCommand());
          }
          if (c.getArgs() != null) {
            argv.addAll(c.getArgs());
          }
        });
    return argv;
  }

  /**
   * The port the engine serves on: the argv's port flag as its parser reads it, else its default.
   */
  public static int listenPort(Engine engine, FlagReader reader, List<String> argv) {
    return reader
        .lastValue(argv, engine.listenFlags().get(1))
        .flatMap(DtypeObserver::port)
        .orElse(engine.defaultPort());
  }

  private static Optional<Integer> port(String value) {
    try {
      int port = Integer.parseInt(value.trim());
      return port > 0 && port < 65536 ? Optional.of(port) : Optional.empty();
    } catch (NumberFormatException e) {
      return Optional.empty();
    }
  }

  /**
   * What each of the engine's dtype flags hands it, as the parser reads the argv, in Binding
   * spellings ({@code bf16} read back as {@code bfloat16}), escaped and cut short; flags the argv
   * does not pass are left out.
   */
  private record Handed(Map<String, String> byFlag) {
    static Handed read(
        Engine engine, FlagReader reader, List<String> argv, Optional<String> version) {
      Map<String, String> byFlag = new LinkedHashMap<>();
      for (String flag : engine.dtypeFlags()) {
        reader
            .lastValue(argv, flag)
            .map(v -> engine.bindingSpelling(v, version))
            // A tenant's argv: shown in verify's table, the source and the condition message.
            .ifPresent(v -> byFlag.put(flag, Quoting.printable(v, SHOWN_VALUE)));
      }
      return new Handed(byFlag);
    }

    /**
     * The one dtype every passed flag hands the engine, or each flag with its value when they
     * differ: {@code --cache-type-k bfloat16, --cache-type-v q4_0}.
     */
    Optional<String> shown() {
      if (byFlag.isEmpty()) {
        return Optional.empty();
      }
      if (byFlag.values().stream().distinct().count() == 1) {
        return Optional.of(byFlag.values().iterator().next());
      }
      List<String> pairs = new ArrayList<>();
      byFlag.forEach((flag, value) -> pairs.add(flag + " " + value));
      return Optional.of(String.join(", ", pairs));
    }

    /** When the flags hand two dtypes, one that is not {@code bindingDtype}. */
    Optional<String> mixed(String bindingDtype) {
      if (byFlag.values().stream().distinct().count() < 2) {
        return Optional.empty();
      }
      return byFlag.values().stream().filter(v -> !v.equals(bindingDtype)).findFirst();
    }
  }

  /** The parts of an observation known before the engine is asked. */
  private record Result(
      String namespace, Pod pod, String owner, String engine, String binding, String bindingDtype) {
    Result withEngine(String engineAt) {
      return new Result(namespace, pod, owner, engineAt, binding, bindingDtype);
    }

    Observation notReported(Optional<String> argvDtype, String why, boolean reached) {
      return new Observation(
          namespace,
          pod.getMetadata().getName(),
          owner,
          engine,
          binding,
          bindingDtype,
          argvDtype,
          Optional.empty(),
          why,
          Verdict.NOT_REPORTED,
          reached);
    }

    Observation observed(
        Optional<String> argvDtype, String observed, String source, Verdict verdict) {
      return new Observation(
          namespace,
          pod.getMetadata().getName(),
          owner,
          engine,
          binding,
          bindingDtype,
          argvDtype,
          Optional.of(observed),
          source,
          verdict,
          true);
    }
  }
}
