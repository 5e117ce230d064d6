package ai.gpustack.kvcache.operator.explain;

import ai.gpustack.kvcache.api.Role;
import ai.gpustack.kvcache.attach.BindingRef;
import ai.gpustack.kvcache.attach.OwnedFlags;
import ai.gpustack.kvcache.attach.Workload;
import ai.gpustack.kvcache.cluster.MemoryClusterView;
import ai.gpustack.kvcache.observe.DtypeObserver;
import ai.gpustack.kvcache.observe.Observation;
import ai.gpustack.kvcache.operator.explain.Explanation.Annotation;
import ai.gpustack.kvcache.operator.explain.Explanation.ArgvFlags;
import ai.gpustack.kvcache.operator.explain.Explanation.AttachedDeployment;
import ai.gpustack.kvcache.operator.explain.Explanation.AttachedPod;
import ai.gpustack.kvcache.operator.explain.Explanation.AttachmentPath;
import ai.gpustack.kvcache.operator.explain.Explanation.BindingSpec;
import ai.gpustack.kvcache.operator.explain.Explanation.ContainerArgv;
import ai.gpustack.kvcache.operator.explain.Explanation.DeploymentSpec;
import ai.gpustack.kvcache.operator.explain.Explanation.Domain;
import ai.gpustack.kvcache.operator.explain.Explanation.EngineDtype;
import ai.gpustack.kvcache.operator.explain.Explanation.Injected;
import ai.gpustack.kvcache.operator.explain.Explanation.Injection;
import ai.gpustack.kvcache.operator.explain.Explanation.KvFormatFlag;
import ai.gpustack.kvcache.operator.explain.Explanation.ManagedPod;
import ai.gpustack.kvcache.operator.explain.Explanation.OwnedFlag;
import ai.gpustack.kvcache.operator.explain.Explanation.Replica;
import ai.gpustack.kvcache.operator.explain.Explanation.RoleExplanation;
import ai.gpustack.kvcache.operator.explain.Explanation.Status;
import ai.gpustack.kvcache.operator.render.PodRenderer;
import ai.gpustack.kvcache.operator.render.RenderException;
import ai.gpustack.kvcache.operator.render.Rendering;
import ai.gpustack.kvcache.resources.KVCachePool;
import ai.gpustack.kvcache.resources.KVCachePoolBinding;
import ai.gpustack.kvcache.resources.Keys;
import ai.gpustack.kvcache.resources.ModelDeployment;
import ai.gpustack.kvcache.resources.Pods;
import ai.gpustack.kvcache.spi.Engine;
import ai.gpustack.kvcache.spi.EngineRegistry;
import io.fabric8.kubernetes.api.model.Container;
import io.fabric8.kubernetes.api.model.Pod;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;

/**
 * Explains one object from a cluster view, changing nothing: resolves its attachment as the webhook
 * and the operator would, renders it, scans its argv for owned flags and asks each Ready replica's
 * engine what it runs.
 */
public final class Explainer {
  private final EngineRegistry engines;
  private final MemoryClusterView cluster;
  private final List<Pod> pods;
  private final List<KVCachePoolBinding> bindings;
  private final DtypeObserver observer;
  private final Resolution resolution;

  /**
   * {@code pods} are the namespace's, {@code bindings} every namespace's; {@code cluster} holds
   * them beside the pools, backends, ModelDeployments and Settings.
   */
  public Explainer(
      EngineRegistry engines,
      MemoryClusterView cluster,
      List<Pod> pods,
      List<KVCachePoolBinding> bindings,
      DtypeObserver observer) {
    this.engines = engines;
    this.cluster = cluster;
    this.pods = List.copyOf(pods);
    this.bindings = List.copyOf(bindings);
    this.observer = observer;
    this.resolution = new Resolution(engines, cluster);
  }

  /** The explanation of {@code kind} {@code namespace/name}; empty when there is no such object. */
  public Optional<Explanation> explain(ObjectKind kind, String namespace, String name) {
    return switch (kind) {
      case DEPLOYMENT ->
          cluster.modelDeployments(namespace).stream()
              .filter(m -> m.getMetadata().getName().equals(name))
              .findFirst()
              .map(this::deployment);
      case POD ->
          pods.stream()
              .filter(p -> p.getMetadata().getName().equals(name))
              .findFirst()
              .map(this::pod);
      case BINDING -> cluster.binding(namespace, name).map(this::binding);
    };
  }

  private Explanation deployment(ModelDeployment md) {
    String ns = md.getMetadata().getNamespace();
    Optional<DeploymentSpec> spec = Optional.empty();
    if (md.getSpec() != null) {
      spec = Optional.of(deploymentSpec(md));
    }
    return new Explanation.Deployment(ns, md.getMetadata().getName(), spec);
  }

  private DeploymentSpec deploymentSpec(ModelDeployment md) {
    String ns = md.getMetadata().getNamespace();
    Optional<String> version = md.getSpec().engine().version();
    Optional<Engine> engine = engines.find(md.getSpec().engine().name());
    boolean kvCache = md.getSpec().kvCache().isPresent();
    Optional<AttachmentPath> attachment =
        engine
            .filter(e -> kvCache)
            .map(
                e ->
                    resolution.attachment(
                        BindingRef.deployment(ns, md.getSpec().kvCache().get().poolRef().name()),
                        Workload.stored(Workload.MODEL_DEPLOYMENT, md.getMetadata()),
                        e,
                        version));
    Optional<Rendering> rendering = Optional.empty();
    Optional<String> renderFailure = Optional.empty();
    try {
      rendering = Optional.of(new PodRenderer(engines).render(md, cluster));
    } catch (RenderException e) {
      renderFailure = Optional.of(e.getMessage());
    }
    List<RoleExplanation> roles = new ArrayList<>();
    for (int i = 0; i < md.getSpec().roles().size(); i++) {
      roles.add(role(md, i, engine, rendering));
    }
    return new DeploymentSpec(
        resolution.engineChoice("spec.engine", md.getSpec().engine().name(), version, engine),
        cluster.settings(),
        kvCache,
        attachment,
        renderFailure,
        roles,
        new Status(
            md.getStatus() == null ? Optional.empty() : md.getStatus().phase(),
            md.getStatus() == null ? List.of() : md.getStatus().conditions()));
  }

  private RoleExplanation role(
      ModelDeployment md, int index, Optional<Engine> engine, Optional<Rendering> rendering) {
    Role role = md.getSpec().roles().get(index);
    String field = "spec.roles[" + index + "]." + (role.isTakeOver() ? "command" : "extraArgs");
    Optional<ArgvFlags> flags =
        engine.map(
            e ->
                argvFlags(
                    e,
                    md.getSpec().engine().version(),
                    role.isTakeOver() ? role.command() : role.extraArgs(),
                    field,
                    md.getSpec().kvCache().isPresent() && !role.isTakeOver()));
    Optional<String> renders =
        rendering
            .filter(r -> !r.isHeld())
            .flatMap(r -> r.roles().stream().filter(p -> p.name().equals(role.name())).findFirst())
            .flatMap(p -> p.pods().stream().findFirst())
            .map(p -> String.join(" ", p.getSpec().getContainers().get(0).getCommand()));
    Optional<String> held =
        rendering.filter(Rendering::isHeld).map(r -> r.held().orElseThrow().reason());
    List<Pod> replicas =
        pods.stream()
            .filter(p -> md.getMetadata().getName().equals(label(p, Keys.INSTANCE)))
            .filter(p -> role.name().equals(label(p, Keys.COMPONENT)))
            .filter(p -> label(p, Keys.MANAGED_BY) != null)
            .sorted(Comparator.comparing(Pods::ordinal))
            .toList();
    // Every replica asked at once, their answers read in ordinal order.
    List<CompletableFuture<Observation>> reads =
        replicas.stream().map(p -> observer.managed(md, p, cluster)).toList();
    List<Replica> observed = new ArrayList<>();
    for (int r = 0; r < replicas.size(); r++) {
      observed.add(replica(replicas.get(r), reads.get(r).join()));
    }
    return new RoleExplanation(
        index,
        role.name(),
        String.valueOf(role.kind()),
        role.replicas(),
        role.isTakeOver(),
        flags,
        renders,
        held,
        observed);
  }

  private Explanation pod(Pod pod) {
    String ns = pod.getMetadata().getNamespace();
    String name = pod.getMetadata().getName();
    String owner = label(pod, Keys.INSTANCE);
    if (owner != null && label(pod, Keys.MANAGED_BY) != null) {
      return new Explanation.Pod(ns, name, Optional.of(managed(pod, owner)), Optional.empty());
    }
    if (!Pods.injectionRequested(pod)) {
      return new Explanation.Pod(ns, name, Optional.empty(), Optional.empty());
    }
    return new Explanation.Pod(ns, name, Optional.empty(), Optional.of(injection(pod)));
  }

  private ManagedPod managed(Pod pod, String owner) {
    Optional<ModelDeployment> md =
        cluster.modelDeployments(pod.getMetadata().getNamespace()).stream()
            .filter(m -> m.getMetadata().getName().equals(owner))
            .filter(m -> m.getSpec() != null)
            .findFirst();
    List<ContainerArgv> containers =
        md.flatMap(m -> engines.find(m.getSpec().engine().name()))
            .map(e -> containers(pod, "main", e, md.get().getSpec().engine().version()))
            .orElse(List.of());
    Optional<Replica> replica = md.map(m -> replica(pod, observer.managed(m, pod, cluster).join()));
    return new ManagedPod(
        owner, label(pod, Keys.COMPONENT), Pods.ordinal(pod), containers, replica);
  }

  private Injection injection(Pod pod) {
    List<Annotation> annotations = new ArrayList<>();
    for (String key :
        List.of(
            Keys.BINDING,
            Keys.ENGINE,
            Keys.ENGINE_VERSION,
            Keys.CONTAINER,
            Keys.LAUNCH_ARGS_FORWARDED)) {
      Pods.annotation(pod, key).ifPresent(v -> annotations.add(new Annotation(key, v)));
    }
    Optional<String> version = Pods.annotation(pod, Keys.ENGINE_VERSION);
    Optional<Engine> engine = Pods.annotation(pod, Keys.ENGINE).flatMap(engines::find);
    Optional<AttachmentPath> attachment =
        Pods.annotation(pod, Keys.BINDING)
            .flatMap(
                binding ->
                    engine.map(
                        e ->
                            resolution.attachment(
                                BindingRef.pod(pod.getMetadata().getNamespace(), binding),
                                Workload.stored(Workload.POD, pod.getMetadata()),
                                e,
                                version)));
    return new Injection(
        annotations,
        resolution.engineChoice(
            "metadata.annotations[" + Keys.ENGINE + "]",
            Pods.annotation(pod, Keys.ENGINE).orElse(""),
            version,
            engine),
        cluster.settings(),
        attachment,
        Pods.annotation(pod, Keys.INJECTED).map(record -> injected(pod, record, engine, version)));
  }

  private Injected injected(
      Pod pod, String record, Optional<Engine> engine, Optional<String> version) {
    String target =
        Pods.annotation(pod, Keys.CONTAINER).orElse(pod.getSpec().getContainers().get(0).getName());
    return new Injected(
        record,
        engine.map(e -> containers(pod, target, e, version)).orElse(List.of()),
        Pods.ready(pod)
            ? Optional.of(replica(pod, observer.injected(pod, cluster).join()))
            : Optional.empty());
  }

  /** The containers named {@code target} (one, in a valid Pod) and the owned flags in each argv. */
  private List<ContainerArgv> containers(
      Pod pod, String target, Engine engine, Optional<String> version) {
    List<ContainerArgv> found = new ArrayList<>();
    List<Container> containers = pod.getSpec().getContainers();
    for (int i = 0; i < containers.size(); i++) {
      Container c = containers.get(i);
      if (!c.getName().equals(target)) {
        continue;
      }
      List<String> command = c.getCommand() == null ? List.of() : c.getCommand();
      List<String> args = c.getArgs() == null ? List.of() : c.getArgs();
      List<String> argv = new ArrayList<>(command);
      argv.addAll(args);
      String at = "spec.containers[" + i + "]";
      ArgvFlags flags =
          argvFlags(
              engine,
              version,
              OwnedFlags.Subject.container(c.getName(), at, command, args, List.of()),
              at,
              true);
      found.add(new ContainerArgv(i, c.getName(), String.join(" ", argv), flags.owned()));
    }
    return found;
  }

  private ArgvFlags argvFlags(
      Engine engine, Optional<String> version, List<String> argv, String field, boolean owned) {
    return argvFlags(
        engine,
        version,
        OwnedFlags.Subject.commandThenArgs(field, "", List.of(), field, argv),
        field,
        owned);
  }

  /**
   * Every owned flag in {@code subject}'s argv, and every flag changing the KV representation, as
   * the engine at {@code version} reads it: the owned-keys rule's hits, printed rather than
   * refused. The one place explain looks at an argv.
   */
  private static ArgvFlags argvFlags(
      Engine engine,
      Optional<String> version,
      OwnedFlags.Subject subject,
      String field,
      boolean dtypeOwned) {
    OwnedFlags.Verdict verdict = OwnedFlags.check(engine, version, subject, true, "");
    List<OwnedFlag> owned =
        verdict.hits().stream()
            .map(
                hit ->
                    new OwnedFlag(
                        hit.field(),
                        hit.occurrence().describe(engine.id()),
                        hit.occurrence().value(),
                        hit.dtype()))
            .toList();
    List<KvFormatFlag> kvFormat =
        verdict.kvFormat().stream()
            .map(
                hit ->
                    new KvFormatFlag(
                        hit.field(), hit.occurrence().token().spelling(), hit.effect()))
            .toList();
    return new ArgvFlags(field, dtypeOwned, owned, kvFormat);
  }

  private Explanation binding(KVCachePoolBinding binding) {
    String ns = binding.getMetadata().getNamespace();
    String name = binding.getMetadata().getName();
    return new Explanation.Binding(
        ns, name, binding.getSpec() == null ? Optional.empty() : Optional.of(bindingSpec(binding)));
  }

  private BindingSpec bindingSpec(KVCachePoolBinding binding) {
    var domain = binding.getSpec().domain();
    String pool = binding.getSpec().poolRef().name();
    Optional<KVCachePool> found = cluster.pool(pool);
    Optional<String> backend =
        found.flatMap(
            p ->
                p.getSpec() == null
                    ? Optional.empty()
                    : p.getSpec().backends().stream().findFirst());
    return new BindingSpec(
        new Domain(domain.name(), domain.blockSize(), domain.dtype()),
        pool,
        found.isPresent(),
        backend,
        sharing(binding, backend),
        cluster.settings(),
        engineDtypes(domain.dtype()),
        attachedDeployments(binding),
        attachedPods(binding),
        binding.getStatus() == null
            ? Optional.empty()
            : Optional.of(
                binding.getStatus().usedBy().stream().map(w -> w.kind() + " " + w.name()).toList()),
        new Status(
            binding.getStatus() == null ? Optional.empty() : binding.getStatus().phase(),
            binding.getStatus() == null ? List.of() : binding.getStatus().conditions()));
  }

  /** The other Bindings naming the same domain on the same backend. */
  private List<String> sharing(KVCachePoolBinding binding, Optional<String> backend) {
    String domain = binding.getSpec().domain().name();
    return bindings.stream()
        .filter(b -> b != binding && b.getSpec() != null)
        .filter(b -> b.getSpec().domain().name().equals(domain))
        .filter(
            b ->
                cluster
                    .pool(b.getSpec().poolRef().name())
                    .flatMap(p -> p.getSpec().backends().stream().findFirst())
                    .equals(backend))
        .map(b -> b.getMetadata().getNamespace() + "/" + b.getMetadata().getName())
        .toList();
  }

  private List<EngineDtype> engineDtypes(String dtype) {
    return engines.engines().stream()
        .map(
            e ->
                new EngineDtype(
                    e.displayName(),
                    e.acceptsDtype(dtype, Optional.empty()),
                    e.kvFormat(dtype, Optional.empty()).map(Object::toString)))
        .toList();
  }

  private List<AttachedDeployment> attachedDeployments(KVCachePoolBinding binding) {
    String ns = binding.getMetadata().getNamespace();
    String name = binding.getMetadata().getName();
    List<AttachedDeployment> attached = new ArrayList<>();
    for (ModelDeployment md : cluster.modelDeployments(ns)) {
      if (!md.attachesThrough(name)) {
        continue;
      }
      Optional<String> version = md.getSpec().engine().version();
      attached.add(
          new AttachedDeployment(
              md.getMetadata().getName(),
              md.getSpec().engine().name(),
              version,
              resolution.verdict(
                  BindingRef.deployment(ns, name),
                  Workload.stored(Workload.MODEL_DEPLOYMENT, md.getMetadata()),
                  engines.find(md.getSpec().engine().name()),
                  version),
              md.getStatus() == null ? Optional.empty() : md.getStatus().phase()));
    }
    return attached;
  }

  private List<AttachedPod> attachedPods(KVCachePoolBinding binding) {
    String ns = binding.getMetadata().getNamespace();
    String name = binding.getMetadata().getName();
    List<AttachedPod> attached = new ArrayList<>();
    for (Pod pod : cluster.injectedPods(ns)) {
      if (!Pods.annotation(pod, Keys.BINDING).map(name::equals).orElse(false)) {
        continue;
      }
      Optional<String> version = Pods.annotation(pod, Keys.ENGINE_VERSION);
      attached.add(
          new AttachedPod(
              pod.getMetadata().getName(),
              Pods.annotation(pod, Keys.ENGINE).orElse("?"),
              version,
              resolution.verdict(
                  BindingRef.pod(ns, name),
                  Workload.stored(Workload.POD, pod.getMetadata()),
                  Pods.annotation(pod, Keys.ENGINE).flatMap(engines::find),
                  version)));
    }
    return attached;
  }

  private static Replica replica(Pod pod, Observation o) {
    return new Replica(
        pod.getMetadata().getName(),
        Pods.ready(pod),
        o.argvDtype(),
        o.observedDtype(),
        o.source(),
        o.verdict().word());
  }

  private static String label(Pod pod, String key) {
    return pod.getMetadata().getLabels() == null ? null : pod.getMetadata().getLabels().get(key);
  }
}
