package ai.gpustack.kvcache.operator.cli;

import static ai.gpustack.kvcache.api.Quoting.quote;

import ai.gpustack.kvcache.api.Condition;
import ai.gpustack.kvcache.api.EffectiveSettings;
import ai.gpustack.kvcache.api.Quoting;
import ai.gpustack.kvcache.api.Role;
import ai.gpustack.kvcache.api.SettingDefinition;
import ai.gpustack.kvcache.api.Settings;
import ai.gpustack.kvcache.attach.Attachment;
import ai.gpustack.kvcache.attach.AttachmentResolver;
import ai.gpustack.kvcache.attach.BindingRef;
import ai.gpustack.kvcache.attach.OwnedFlags;
import ai.gpustack.kvcache.attach.Refusal;
import ai.gpustack.kvcache.attach.Workload;
import ai.gpustack.kvcache.cluster.MemoryClusterView;
import ai.gpustack.kvcache.observe.DtypeObserver;
import ai.gpustack.kvcache.observe.Observation;
import ai.gpustack.kvcache.observe.PodProxyFetcher;
import ai.gpustack.kvcache.operator.render.PodRenderer;
import ai.gpustack.kvcache.operator.render.RenderException;
import ai.gpustack.kvcache.operator.render.Rendering;
import ai.gpustack.kvcache.resources.KVCacheBackend;
import ai.gpustack.kvcache.resources.KVCachePool;
import ai.gpustack.kvcache.resources.KVCachePoolBinding;
import ai.gpustack.kvcache.resources.Keys;
import ai.gpustack.kvcache.resources.ModelDeployment;
import ai.gpustack.kvcache.resources.Pods;
import ai.gpustack.kvcache.resources.Setting;
import ai.gpustack.kvcache.spi.Engine;
import ai.gpustack.kvcache.spi.EngineRegistry;
import io.fabric8.kubernetes.api.model.Container;
import io.fabric8.kubernetes.api.model.HasMetadata;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.KubernetesClientException;
import java.io.PrintWriter;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.Callable;
import java.util.concurrent.CompletableFuture;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;

/** {@code kvcache explain}: why an object gets the KV-cache dtype it gets, in words. */
@Command(
    name = "explain",
    mixinStandardHelpOptions = true,
    description = {
      "Why a ModelDeployment, a Pod or a Binding gets what it gets: the resolver's path (Binding,"
          + " pool, backend, endpoint), the Settings in force, the engine's spelling table and KV"
          + " format, every occurrence of an owned flag and how it is spelled, what is rendered or"
          + " injected, and what each Ready replica's engine reports, with the field paths.",
      "OBJECT is md/NAME, pod/NAME or binding/NAME (modeldeployment, kvcachepoolbinding and"
          + " kvcpb read too).",
      "Exit codes: 0 explained; 2 the object or the cluster could not be read."
    })
final class ExplainCommand implements Callable<Integer> {
  @Parameters(paramLabel = "OBJECT", description = "md/NAME, pod/NAME or binding/NAME.")
  String object;

  @Option(
      names = {"-n", "--namespace"},
      description = "The object's namespace; the context's namespace when absent.")
  String namespace;

  @Option(
      names = "--kubeconfig",
      description = "Kubeconfig file; $KUBECONFIG, ~/.kube/config or in-cluster when absent.")
  Path kubeconfig;

  @CommandLine.Spec CommandLine.Model.CommandSpec spec;

  private EngineRegistry engines;
  private MemoryClusterView cluster;
  private List<Pod> pods;
  private List<KVCachePoolBinding> bindings;
  private PrintWriter out;

  @Override
  public Integer call() {
    out = spec.commandLine().getOut();
    PrintWriter err = spec.commandLine().getErr();
    String[] parts = object.split("/", -1);
    String kind = parts.length == 2 ? kind(parts[0]) : "";
    if (kind.isEmpty() || parts[1].isEmpty()) {
      throw new CommandLine.ParameterException(
          spec.commandLine(), object + ": name the object as md/NAME, pod/NAME or binding/NAME");
    }
    String name = parts[1];
    try (KubernetesClient client = Clients.oneShot(kubeconfig)) {
      String ns =
          namespace != null
              ? namespace
              : Optional.ofNullable(client.getNamespace()).orElse("default");
      List<HasMetadata> objects = new ArrayList<>();
      try {
        bindings = client.resources(KVCachePoolBinding.class).inAnyNamespace().list().getItems();
        pods = client.pods().inNamespace(ns).list().getItems();
        objects.addAll(bindings);
        objects.addAll(client.resources(KVCachePool.class).list().getItems());
        objects.addAll(client.resources(KVCacheBackend.class).list().getItems());
        objects.addAll(client.resources(ModelDeployment.class).inNamespace(ns).list().getItems());
        objects.addAll(pods);
        objects.addAll(
            client.resources(Setting.class).inNamespace(Settings.NAMESPACE).list().getItems());
      } catch (KubernetesClientException e) {
        err.println("kvcache explain: " + Clients.unreachable(client, e));
        return 2;
      }
      engines = EngineRegistry.load();
      cluster = MemoryClusterView.of(objects);
      boolean found;
      try (PodProxyFetcher proxy = Clients.podProxy(client)) {
        found = explain(kind, ns, name, new DtypeObserver(engines, proxy));
      }
      if (!found) {
        err.println(
            "kvcache explain: "
                + kindName(kind)
                + " "
                + ns
                + "/"
                + name
                + " not found (the namespace is -n, or the context's)");
        return 2;
      }
      out.flush();
      return 0;
    }
  }

  private boolean explain(String kind, String ns, String name, DtypeObserver observer) {
    return switch (kind) {
      case "md" ->
          cluster.modelDeployments(ns).stream()
              .filter(m -> m.getMetadata().getName().equals(name))
              .findFirst()
              .map(md -> deployment(md, observer))
              .isPresent();
      case "pod" ->
          pods.stream()
              .filter(p -> p.getMetadata().getName().equals(name))
              .findFirst()
              .map(p -> pod(p, observer))
              .isPresent();
      default -> cluster.binding(ns, name).map(this::binding).isPresent();
    };
  }

  private static String kind(String word) {
    return switch (word.toLowerCase(java.util.Locale.ROOT)) {
      case "md", "modeldeployment", "modeldeployments" -> "md";
      case "pod", "pods", "po" -> "pod";
      case "binding", "kvcpb", "kvcachepoolbinding", "kvcachepoolbindings" -> "binding";
      default -> "";
    };
  }

  private static String kindName(String kind) {
    return switch (kind) {
      case "md" -> "ModelDeployment";
      case "pod" -> "Pod";
      default -> "KVCachePoolBinding";
    };
  }

  private boolean deployment(ModelDeployment md, DtypeObserver observer) {
    String ns = md.getMetadata().getNamespace();
    out.println("ModelDeployment " + ns + "/" + md.getMetadata().getName());
    if (md.getSpec() == null) {
      out.println("  it has no spec: nothing is rendered");
      return true;
    }
    Optional<String> version = md.getSpec().engine().version();
    Optional<Engine> engine = engines.find(md.getSpec().engine().name());
    engineLine("spec.engine", md.getSpec().engine().name(), version, engine);
    settings();
    if (md.getSpec().kvCache().isEmpty()) {
      out.println();
      out.println(
          "spec.kvCache is absent: no pool is attached, nothing is rendered and every role keeps"
              + " its own --kv-cache-dtype.");
    } else if (engine.isPresent()) {
      out.println();
      attachment(
          resolve(
              new BindingRef(
                  ns, md.getSpec().kvCache().get().poolRef().name(), "spec.kvCache.poolRef.name"),
              Workload.stored(Workload.MODEL_DEPLOYMENT, md.getMetadata()),
              engine.get(),
              version),
          engine.get(),
          version);
    }
    Optional<Rendering> rendering = Optional.empty();
    try {
      rendering = Optional.of(new PodRenderer(engines).render(md, cluster));
    } catch (RenderException e) {
      out.println();
      out.println("It does not render: " + e.getMessage());
    }
    for (int i = 0; i < md.getSpec().roles().size(); i++) {
      Role role = md.getSpec().roles().get(i);
      out.println();
      out.println(
          "spec.roles["
              + i
              + "] "
              + quote(role.name())
              + " ("
              + role.kind()
              + ", "
              + role.replicas()
              + (role.replicas() == 1 ? " replica" : " replicas")
              + "): "
              + (role.isTakeOver()
                  ? "take-over (command set): the operator adds nothing to its argv, and its own"
                      + " --kv-cache-dtype is its own"
                  : "managed: the operator builds its command"));
      if (engine.isPresent()) {
        String field = role.isTakeOver() ? "command" : "extraArgs";
        flags(
            engine.get(),
            version,
            role.isTakeOver() ? role.command() : role.extraArgs(),
            "spec.roles[" + i + "]." + field,
            md.getSpec().kvCache().isPresent() && !role.isTakeOver());
      }
      rendering
          .filter(r -> !r.isHeld())
          .flatMap(r -> r.roles().stream().filter(p -> p.name().equals(role.name())).findFirst())
          .flatMap(p -> p.pods().stream().findFirst())
          .ifPresent(
              p ->
                  out.println(
                      "  renders: "
                          + shown(
                              String.join(" ", p.getSpec().getContainers().get(0).getCommand()))));
      rendering
          .filter(Rendering::isHeld)
          .ifPresent(
              r ->
                  out.println(
                      "  held: replicas keep their last good render ("
                          + r.held().orElseThrow().reason()
                          + ")"));
      List<Pod> replicas =
          pods.stream()
              .filter(p -> md.getMetadata().getName().equals(label(p, Keys.INSTANCE)))
              .filter(p -> role.name().equals(label(p, Keys.COMPONENT)))
              .filter(p -> label(p, Keys.MANAGED_BY) != null)
              .sorted(java.util.Comparator.comparing(Pods::ordinal))
              .toList();
      List<CompletableFuture<Observation>> reads =
          replicas.stream().map(p -> observer.managed(md, p, cluster)).toList();
      for (int r = 0; r < replicas.size(); r++) {
        replica(replicas.get(r), reads.get(r).join());
      }
    }
    status(
        md.getStatus() == null ? Optional.empty() : md.getStatus().phase(),
        md.getStatus() == null ? List.of() : md.getStatus().conditions());
    return true;
  }

  private boolean pod(Pod pod, DtypeObserver observer) {
    String ns = pod.getMetadata().getNamespace();
    out.println("Pod " + ns + "/" + pod.getMetadata().getName());
    String owner = label(pod, Keys.INSTANCE);
    if (owner != null && label(pod, Keys.MANAGED_BY) != null) {
      Optional<ModelDeployment> md =
          cluster.modelDeployments(ns).stream()
              .filter(m -> m.getMetadata().getName().equals(owner))
              .findFirst();
      out.println(
          "  a replica of ModelDeployment "
              + owner
              + " (label "
              + Keys.INSTANCE
              + "), role "
              + label(pod, Keys.COMPONENT)
              + ", ordinal "
              + Pods.ordinal(pod)
              + ": the operator built its command; `kvcache explain md/"
              + owner
              + "` tells why");
      md.filter(m -> m.getSpec() != null)
          .ifPresent(
              m -> {
                engines
                    .find(m.getSpec().engine().name())
                    .ifPresent(e -> containerFlags(pod, "main", e, m.getSpec().engine().version()));
                replica(pod, observer.managed(m, pod, cluster).join());
              });
      return true;
    }
    if (!Pods.injectionRequested(pod)) {
      out.println(
          "  not attached: it has no label "
              + Keys.INJECT
              + "=\"true\" and no ModelDeployment owns it, so nothing is injected or refused");
      return true;
    }
    out.println(
        "  opts into injection (label " + Keys.INJECT + "=\"true\"); metadata.annotations:");
    for (String key :
        List.of(
            Keys.BINDING,
            Keys.ENGINE,
            Keys.ENGINE_VERSION,
            Keys.CONTAINER,
            Keys.LAUNCH_ARGS_FORWARDED)) {
      Pods.annotation(pod, key).ifPresent(v -> out.println("    " + key + ": " + quote(v)));
    }
    Optional<String> version = Pods.annotation(pod, Keys.ENGINE_VERSION);
    Optional<Engine> engine = Pods.annotation(pod, Keys.ENGINE).flatMap(engines::find);
    engineLine(
        "metadata.annotations[" + Keys.ENGINE + "]",
        Pods.annotation(pod, Keys.ENGINE).orElse(""),
        version,
        engine);
    settings();
    Optional<String> binding = Pods.annotation(pod, Keys.BINDING);
    if (binding.isPresent() && engine.isPresent()) {
      out.println();
      attachment(
          resolve(
              new BindingRef(ns, binding.get(), "metadata.annotations[" + Keys.BINDING + "]"),
              Workload.stored(Workload.POD, pod.getMetadata()),
              engine.get(),
              version),
          engine.get(),
          version);
    }
    Optional<String> record = Pods.annotation(pod, Keys.INJECTED);
    out.println();
    if (record.isEmpty()) {
      out.println(
          "Not injected: no "
              + Keys.INJECTED
              + " record; it was admitted while the webhook did not act on it (the Setting off, or"
              + " the webhook not installed)");
      return true;
    }
    out.println("Injected: metadata.annotations[" + Keys.INJECTED + "] = " + shown(record.get()));
    engine.ifPresent(
        e ->
            containerFlags(
                pod,
                Pods.annotation(pod, Keys.CONTAINER)
                    .orElse(pod.getSpec().getContainers().get(0).getName()),
                e,
                version));
    if (Pods.ready(pod)) {
      replica(pod, observer.injected(pod, cluster).join());
    }
    return true;
  }

  /** The target container's argv and every owned flag in it, with its field path. */
  private void containerFlags(Pod pod, String target, Engine engine, Optional<String> version) {
    List<Container> containers = pod.getSpec().getContainers();
    for (int i = 0; i < containers.size(); i++) {
      Container c = containers.get(i);
      if (!c.getName().equals(target)) {
        continue;
      }
      List<String> command = c.getCommand() == null ? List.of() : c.getCommand();
      List<String> argv = new ArrayList<>(command);
      argv.addAll(c.getArgs() == null ? List.of() : c.getArgs());
      out.println(
          "  spec.containers["
              + i
              + "] "
              + quote(c.getName())
              + ": "
              + shown(String.join(" ", argv)));
      OwnedFlags.Subject subject =
          OwnedFlags.Subject.container(
              c.getName(),
              "spec.containers[" + i + "]",
              command,
              c.getArgs() == null ? List.of() : c.getArgs(),
              List.of());
      for (OwnedFlags.Hit hit : OwnedFlags.check(engine, version, subject, true, "").hits()) {
        out.println(
            "    "
                + hit.field()
                + ": "
                + hit.occurrence().describe(engine.id())
                + hit.occurrence().value().map(v -> " = " + quote(v, 64)).orElse(""));
      }
    }
  }

  private boolean binding(KVCachePoolBinding binding) {
    String ns = binding.getMetadata().getNamespace();
    String name = binding.getMetadata().getName();
    out.println("KVCachePoolBinding " + ns + "/" + name);
    if (binding.getSpec() == null) {
      out.println("  it has no spec");
      return true;
    }
    var domain = binding.getSpec().domain();
    out.println(
        "  spec.domain: name "
            + quote(domain.name())
            + ", blockSize "
            + domain.blockSize()
            + ", dtype "
            + quote(domain.dtype())
            + " (every field immutable)");
    String pool = binding.getSpec().poolRef().name();
    Optional<KVCachePool> found = cluster.pool(pool);
    Optional<String> backend =
        found.flatMap(
            p ->
                p.getSpec() == null
                    ? Optional.empty()
                    : p.getSpec().backends().stream().findFirst());
    out.println(
        "  spec.poolRef.name "
            + quote(pool)
            + (found.isEmpty()
                ? ": no such KVCachePool"
                : " → KVCachePool "
                    + pool
                    + ", backend "
                    + backend.map(b -> quote(b)).orElse("(none)")));
    List<String> sharing =
        bindings.stream()
            .filter(b -> b != binding && b.getSpec() != null)
            .filter(b -> b.getSpec().domain().name().equals(domain.name()))
            .filter(
                b ->
                    cluster
                        .pool(b.getSpec().poolRef().name())
                        .flatMap(p -> p.getSpec().backends().stream().findFirst())
                        .equals(backend))
            .map(b -> b.getMetadata().getNamespace() + "/" + b.getMetadata().getName())
            .toList();
    out.println(
        "  domain claim: "
            + (sharing.isEmpty()
                ? "no other Binding on backend "
                    + backend.orElse("?")
                    + " names "
                    + quote(domain.name())
                : "also named by "
                    + sharing
                    + " on the same backend (one was admitted before the claim rule)"));
    settings();
    out.println();
    out.println(
        "spec.domain.dtype " + quote(domain.dtype()) + " per registered engine (newest table):");
    for (Engine e : engines.engines()) {
      out.println(
          "  "
              + e.displayName()
              + ": "
              + (e.acceptsDtype(domain.dtype(), Optional.empty())
                  ? "accepts it, stored as "
                      + e.kvFormat(domain.dtype(), Optional.empty())
                          .map(Object::toString)
                          .orElse("?")
                  : "does not accept it"));
    }
    out.println();
    out.println("Attached through it (namespace " + ns + "):");
    int attached = 0;
    for (ModelDeployment md : cluster.modelDeployments(ns)) {
      if (!md.attachesThrough(name)) {
        continue;
      }
      attached++;
      Optional<String> version = md.getSpec().engine().version();
      Optional<Engine> engine = engines.find(md.getSpec().engine().name());
      out.println(
          "  ModelDeployment "
              + md.getMetadata().getName()
              + " ("
              + md.getSpec().engine().name()
              + version.map(v -> " " + v).orElse("")
              + "): "
              + verdict(
                  new BindingRef(ns, name, "spec.kvCache.poolRef.name"),
                  Workload.stored(Workload.MODEL_DEPLOYMENT, md.getMetadata()),
                  engine,
                  version)
              + ", phase "
              + (md.getStatus() == null ? "-" : md.getStatus().phase().orElse("-")));
    }
    for (Pod pod : cluster.injectedPods(ns)) {
      if (!Pods.annotation(pod, Keys.BINDING).map(name::equals).orElse(false)) {
        continue;
      }
      attached++;
      Optional<String> version = Pods.annotation(pod, Keys.ENGINE_VERSION);
      Optional<Engine> engine = Pods.annotation(pod, Keys.ENGINE).flatMap(engines::find);
      out.println(
          "  Pod "
              + pod.getMetadata().getName()
              + " (injected, "
              + Pods.annotation(pod, Keys.ENGINE).orElse("?")
              + version.map(v -> " " + v).orElse("")
              + "): "
              + verdict(
                  new BindingRef(ns, name, "metadata.annotations[" + Keys.BINDING + "]"),
                  Workload.stored(Workload.POD, pod.getMetadata()),
                  engine,
                  version));
    }
    if (attached == 0) {
      out.println("  nothing");
    }
    if (binding.getStatus() != null) {
      out.println();
      out.println(
          "status.usedBy: "
              + (binding.getStatus().usedBy().isEmpty()
                  ? "empty"
                  : binding.getStatus().usedBy().stream()
                      .map(w -> w.kind() + " " + w.name())
                      .toList()));
    }
    status(
        binding.getStatus() == null ? Optional.empty() : binding.getStatus().phase(),
        binding.getStatus() == null ? List.of() : binding.getStatus().conditions());
    return true;
  }

  private Attachment resolve(
      BindingRef ref, Workload self, Engine engine, Optional<String> version) {
    return new AttachmentResolver(engines)
        .resolve(ref, self, engine, version, cluster.settings(), cluster);
  }

  /** What the Binding is to one attached workload, in a few words: the ruling and the format. */
  private String verdict(
      BindingRef ref, Workload self, Optional<Engine> engine, Optional<String> version) {
    if (engine.isEmpty()) {
      return "engine not registered";
    }
    Attachment a = resolve(ref, self, engine.get(), version);
    String format =
        engine.get().kvFormat(a.dtype().dtype(), version).map(f -> ", stored as " + f).orElse("");
    return a.refusal()
        .map(r -> "refused (" + r.reason() + ")")
        .orElse(
            a.dtype().outcome().name().toLowerCase(java.util.Locale.ROOT).replace('_', ' ')
                + format);
  }

  private void engineLine(
      String field, String name, Optional<String> version, Optional<Engine> engine) {
    if (engine.isEmpty()) {
      out.println(
          "  "
              + field
              + ".name "
              + quote(name)
              + ": no registered engine has this id (registered: "
              + engines.engines().stream().map(Engine::id).toList()
              + ")");
      return;
    }
    out.println(
        "  "
            + field
            + " "
            + quote(name)
            + " → engine module "
            + engine.get().id()
            + " ("
            + engine.get().artifact()
            + "); version "
            + version.map(v -> quote(v)).orElse("absent (the newest table)")
            + " selects the spelling table "
            + engine.get().dtypeSpellings().forVersion(version).basis());
  }

  private void settings() {
    EffectiveSettings effective = cluster.settings();
    out.println();
    out.println("Settings in force (namespace " + Settings.NAMESPACE + "):");
    for (SettingDefinition definition : Settings.catalog()) {
      String value =
          definition.name().equals(Settings.KV_CACHE_DTYPE_OWNED.name())
              ? (effective.kvCacheDtypeOwned()
                  ? "on: the Binding's dtype is rendered, and anyone else naming the flag is refused"
                  : "off: nothing is rendered or refused")
              : definition.name().equals(Settings.KV_CACHE_DTYPE_SPELLING_CHECK.name())
                  ? effective.spellingCheck()
                      + switch (effective.spellingCheck()) {
                        case Enforce ->
                            ": a dtype the engine rejects is refused, a stored deployment held";
                        case Warn -> ": a dtype the engine rejects is passed with a warning";
                        case Off -> ": dtypes are passed unchecked";
                      }
                  : definition.defaultValue();
      out.println("  " + definition.name() + ": " + value);
    }
  }

  private void attachment(Attachment a, Engine engine, Optional<String> version) {
    out.println("Attachment (" + a.ref().field() + " = " + quote(a.ref().name()) + "):");
    a.binding()
        .ifPresent(
            b ->
                out.println(
                    "  KVCachePoolBinding "
                        + a.ref().namespace()
                        + "/"
                        + a.ref().name()
                        + ": domain "
                        + quote(b.getSpec().domain().name())
                        + ", blockSize "
                        + b.getSpec().domain().blockSize()
                        + ", dtype "
                        + quote(b.getSpec().domain().dtype())
                        + " (spec.domain)"));
    a.pool()
        .ifPresent(
            p ->
                out.println(
                    "  spec.poolRef.name → KVCachePool "
                        + p.getMetadata().getName()
                        + ", spec.backends[0] → "
                        + a.backend()
                            .map(b -> "KVCacheBackend " + b.getMetadata().getName())
                            .orElse("no readable backend")));
    a.endpoint()
        .ifPresent(
            e ->
                out.println(
                    "  store endpoint "
                        + e
                        + (a.backend().isPresent()
                            ? " (spec.connection.external.clientEndpoint)"
                            : " (the pool's status.clientEndpoint)")
                        + a.tenant()
                            .map(
                                t -> ", tenant " + quote(t) + " (the domain name; multiTenancy on)")
                            .orElse(", no tenant (multiTenancy off)")));
    out.println("  dtype: " + a.dtype().outcome().name() + ": " + a.dtype().message());
    if (!a.dtype().dtype().isEmpty()) {
      engine
          .kvFormat(a.dtype().dtype(), version)
          .ifPresent(
              f ->
                  out.println(
                      "  format: "
                          + engine.id()
                          + " stores "
                          + quote(a.dtype().dtype())
                          + " as "
                          + f
                          + " ("
                          + f.description()
                          + ")"));
    }
    a.warnings().forEach(w -> out.println("  warning: " + w));
    a.refusal()
        .ifPresentOrElse(
            r ->
                out.println(
                    "  refused at "
                        + r.field()
                        + " ("
                        + r.reason()
                        + ")"
                        + (r.message().equals(a.dtype().message()) ? "" : ": " + r.message())),
            () -> out.println("  attached: nothing refuses it"));
    a.refusal()
        .filter(r -> r.reason().equals(Refusal.SPELLING_REJECTED))
        .flatMap(r -> sameFormat(a.dtype().dtype(), engine, version))
        .ifPresent(
            spelling ->
                out.println(
                    "  recovery: kvcache migrate --binding "
                        + a.ref().namespace()
                        + "/"
                        + a.ref().name()
                        + " --dtype "
                        + spelling
                        + " (the plan first; --apply carries it out)"));
  }

  /**
   * A spelling {@code engine} accepts for the format another registered engine stores {@code dtype}
   * as: {@code bfloat16} for SGLang's {@code bf16} on vLLM.
   */
  private Optional<String> sameFormat(String dtype, Engine engine, Optional<String> version) {
    return engines.engines().stream()
        .flatMap(e -> e.kvFormat(dtype, Optional.empty()).stream())
        .findFirst()
        .flatMap(
            format ->
                engine.dtypeSpellings().forVersion(version).entry().stream()
                    .flatMap(entry -> entry.spellings().stream())
                    .filter(s -> engine.kvFormat(s, version).equals(Optional.of(format)))
                    .sorted()
                    .findFirst());
  }

  private void flags(
      Engine engine, Optional<String> version, List<String> argv, String field, boolean owned) {
    OwnedFlags.Verdict verdict =
        OwnedFlags.check(
            engine,
            version,
            OwnedFlags.Subject.commandThenArgs(field, "", List.of(), field, argv, List.of(), ""),
            true,
            "");
    List<OwnedFlags.Hit> hits = verdict.hits();
    if (hits.isEmpty()) {
      out.println("  owned flags in " + field + ": none");
    }
    for (OwnedFlags.Hit hit : hits) {
      out.println(
          "  "
              + field
              + "["
              + hit.occurrence().index()
              + "]: "
              + hit.occurrence().describe(engine.id())
              + hit.occurrence().value().map(v -> " = " + quote(v, 64)).orElse("")
              + (hit.dtype() && !owned
                  ? " (its own: not owned here)"
                  : hit.dtype()
                      ? " (refused while the dtype is owned)"
                      : " (owned by the engine's connector)"));
    }
    for (OwnedFlags.KvFormatHit hit : verdict.kvFormat()) {
      out.println(
          "  "
              + field
              + "["
              + hit.occurrence().index()
              + "]: "
              + hit.occurrence().token().spelling()
              + " changes the KV representation ("
              + hit.effect()
              + ")");
    }
  }

  private void replica(Pod pod, Observation o) {
    out.println(
        "  Pod "
            + pod.getMetadata().getName()
            + ": "
            + (Pods.ready(pod) ? "Ready" : "not Ready")
            + "; its argv hands the engine "
            + o.argvDtype().map(d -> quote(d, 64)).orElse("no --kv-cache-dtype")
            + "; the engine reports "
            + o.observedDtype().map(d -> quote(d, 64)).orElse("nothing readable")
            + " ("
            + o.source()
            + "): "
            + o.verdict().word());
  }

  private void status(Optional<String> phase, List<Condition> conditions) {
    out.println();
    out.println("status.phase: " + phase.orElse("(not reported yet)"));
    for (Condition c : conditions) {
      out.println(
          "  "
              + c.type()
              + "="
              + c.status()
              + " "
              + c.reason().orElse("")
              + ": "
              + shown(c.message().orElse("")));
    }
  }

  private static String label(Pod pod, String key) {
    return pod.getMetadata().getLabels() == null ? null : pod.getMetadata().getLabels().get(key);
  }

  /**
   * Text from a tenant's objects as a terminal may show it: control characters escaped, so an argv
   * cannot send the reader's terminal an escape sequence; cut at 4,096 characters.
   */
  private static String shown(String text) {
    return Quoting.printable(text, 4096);
  }
}
