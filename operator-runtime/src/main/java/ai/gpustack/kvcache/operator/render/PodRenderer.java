package ai.gpustack.kvcache.operator.render;

import static ai.gpustack.kvcache.api.Quoting.quote;

import ai.gpustack.kvcache.api.ContainerPort;
import ai.gpustack.kvcache.api.EffectiveSettings;
import ai.gpustack.kvcache.api.EnvVar;
import ai.gpustack.kvcache.api.ModelDeploymentSpec;
import ai.gpustack.kvcache.api.PodSecurity;
import ai.gpustack.kvcache.api.Role;
import ai.gpustack.kvcache.attach.Attachment;
import ai.gpustack.kvcache.attach.AttachmentResolver;
import ai.gpustack.kvcache.attach.BindingRef;
import ai.gpustack.kvcache.attach.ConfigVolume;
import ai.gpustack.kvcache.attach.Workload;
import ai.gpustack.kvcache.cluster.ClusterView;
import ai.gpustack.kvcache.resources.Keys;
import ai.gpustack.kvcache.resources.ModelDeployment;
import ai.gpustack.kvcache.spi.AttachmentRequest;
import ai.gpustack.kvcache.spi.CacheAttachment;
import ai.gpustack.kvcache.spi.ClientConfigFile;
import ai.gpustack.kvcache.spi.Engine;
import ai.gpustack.kvcache.spi.EngineRegistry;
import ai.gpustack.kvcache.spi.ManagedRole;
import io.fabric8.kubernetes.api.model.Capabilities;
import io.fabric8.kubernetes.api.model.Container;
import io.fabric8.kubernetes.api.model.ObjectMeta;
import io.fabric8.kubernetes.api.model.OwnerReference;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.PodSecurityContext;
import io.fabric8.kubernetes.api.model.PodSpec;
import io.fabric8.kubernetes.api.model.Quantity;
import io.fabric8.kubernetes.api.model.ResourceRequirements;
import io.fabric8.kubernetes.api.model.SeccompProfile;
import io.fabric8.kubernetes.api.model.SecurityContext;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.TreeMap;
import java.util.concurrent.ConcurrentHashMap;

/**
 * Renders a ModelDeployment into its desired Pods: bare Pods, one per replica ordinal, container
 * {@code main}, the engine's whole argv folded into {@code command}, and the pod-spec hash stamped
 * last. Pure and thread-safe: the same inputs give the same Pods, byte for byte.
 *
 * <p>A replica whose inputs did not change since its last render gets the very Pod rendered then,
 * since most reconciles (a replica turned Ready) change no input (docs/operating.md, "Capacity").
 * Rendered Pods are therefore shared; treat them as read-only.
 */
public final class PodRenderer {
  public static final String MAIN = "main";
  public static final String MANAGER = "kvcache-operator";

  /** Where a deployment names its Binding. */
  private final EngineRegistry engines;

  private final AttachmentResolver resolver;

  /** Everything {@link #pod} reads: one replica's Pod is a function of these alone. */
  private record PodInputs(
      String apiVersion,
      String kind,
      String namespace,
      String name,
      String uid,
      String model,
      Role role,
      int index,
      int ordinal,
      Engine engine,
      Optional<String> version,
      Optional<AttachmentRequest> request,
      PodSecurity security) {
    PodInputs withOrdinal(int other) {
      return new PodInputs(
          apiVersion,
          kind,
          namespace,
          name,
          uid,
          model,
          role,
          index,
          other,
          engine,
          version,
          request,
          security);
    }

    /** The key of the replica these render, for {@link #lastRendered}. */
    String replica() {
      return uid + "/" + index + "/" + ordinal;
    }
  }

  private record Rendered(PodInputs inputs, Pod pod) {}

  /** Each replica's last render, by owner uid, role index and ordinal. */
  private final Map<String, Rendered> lastRendered = new ConcurrentHashMap<>();

  public PodRenderer(EngineRegistry engines) {
    this.engines = engines;
    this.resolver = new AttachmentResolver(engines);
  }

  /**
   * The desired state of {@code md} given {@code cluster}; throws {@link RenderException} when
   * none.
   */
  public Rendering render(ModelDeployment md, ClusterView cluster) {
    ModelDeploymentSpec spec = md.getSpec();
    if (spec == null) {
      throw new RenderException("ModelDeployment " + quote(name(md)) + " has no spec");
    }
    Engine engine =
        engines
            .find(spec.engine().name())
            .orElseThrow(() -> new RenderException(engines.unknown(spec.engine().name())));
    EffectiveSettings settings = cluster.settings();
    Optional<String> version = spec.engine().version();
    boolean allTakeOver = spec.roles().stream().allMatch(Role::isTakeOver);
    Optional<Attachment> attachment =
        spec.kvCache()
            .map(
                k ->
                    resolver.resolve(
                        BindingRef.deployment(md.getMetadata().getNamespace(), k.poolRef().name()),
                        Workload.stored(Workload.MODEL_DEPLOYMENT, md.getMetadata()),
                        engine,
                        version,
                        settings,
                        cluster));
    List<Rendering.RolePlan> plans = new ArrayList<>();
    for (int r = 0; r < spec.roles().size(); r++) {
      Role role = spec.roles().get(r);
      Optional<AttachmentRequest> request =
          role.isTakeOver() ? Optional.empty() : attachment.flatMap(a -> a.request(role.kind()));
      List<Pod> pods = new ArrayList<>();
      for (int ordinal = 0; ordinal < role.replicas(); ordinal++) {
        pods.add(
            memoized(
                new PodInputs(
                    md.getApiVersion(),
                    md.getKind(),
                    md.getMetadata().getNamespace(),
                    md.getMetadata().getName(),
                    md.getMetadata().getUid(),
                    spec.model().name(),
                    role,
                    r,
                    ordinal,
                    engine,
                    version,
                    request,
                    settings.podSecurity())));
      }
      plans.add(new Rendering.RolePlan(role.name(), role.isTakeOver(), List.copyOf(pods)));
    }
    return new Rendering(List.copyOf(plans), attachment, allTakeOver);
  }

  private Pod memoized(PodInputs inputs) {
    Rendered last = lastRendered.get(inputs.replica());
    if (last != null && last.inputs().equals(inputs)) {
      return last.pod();
    }
    Pod pod = pod(inputs);
    // A role's replicas differ in name and labels only: they keep one copy of the spec between
    // them, a quarter of the memory at 4 replicas. Nothing changes a rendered Pod.
    Rendered first = lastRendered.get(inputs.withOrdinal(0).replica());
    if (inputs.ordinal() > 0 && first != null && first.pod().getSpec().equals(pod.getSpec())) {
      pod.setSpec(first.pod().getSpec());
    }
    lastRendered.put(inputs.replica(), new Rendered(inputs, pod));
    return pod;
  }

  /** Drops what {@link #render} kept for {@code md}'s replicas, once it is gone. */
  public void forget(ModelDeployment md) {
    String prefix = md.getMetadata().getUid() + "/";
    lastRendered.keySet().removeIf(k -> k.startsWith(prefix));
  }

  /**
   * Plain model objects rather than fabric8's builders: in a fresh JVM rendering a fleet costs a
   * fifth less CPU, most of it the JIT compiling the builders' copies (docs/operating.md).
   */
  private static Pod pod(PodInputs in) {
    Role role = in.role();
    Engine engine = in.engine();
    String image = image(in);
    List<ContainerPort> ports =
        role.ports().isEmpty()
            ? List.of(
                ContainerPort.builder().name("http").containerPort(engine.defaultPort()).build())
            : role.ports();
    Optional<CacheAttachment> cache = in.request().map(engine::attachment);
    MainProcess main = mainProcess(in, ports, cache);
    Map<String, String> annotations = new LinkedHashMap<>();
    Optional<ClientConfigFile> config = cache.flatMap(CacheAttachment::clientConfig);
    config.ifPresent(c -> annotations.put(Keys.CLIENT_CONFIG, c.content()));
    Container container = container(role, image, main, ports);
    // The restricted Pod Security Standard (baseline: all of it but running as non-root), and no
    // ServiceAccount token: an engine has no business with the API server.
    PodSecurityContext security = new PodSecurityContext();
    security.setRunAsNonRoot(in.security() == PodSecurity.restricted ? Boolean.TRUE : null);
    SeccompProfile seccomp = new SeccompProfile();
    seccomp.setType("RuntimeDefault");
    security.setSeccompProfile(seccomp);
    PodSpec spec = new PodSpec();
    spec.setContainers(List.of(container));
    spec.setRestartPolicy("Always");
    spec.setAutomountServiceAccountToken(false);
    spec.setSecurityContext(security);
    config.ifPresent(
        c -> {
          container.setVolumeMounts(List.of(ConfigVolume.mount(c)));
          spec.setVolumes(List.of(ConfigVolume.volume(c)));
        });
    Pod pod = new Pod();
    pod.setMetadata(metadata(in, labels(in), annotations));
    pod.setSpec(spec);
    annotations.put(Keys.POD_SPEC_HASH, PodSpecHash.of(pod));
    return pod;
  }

  /** What the main container runs: its command and environment. */
  private record MainProcess(List<String> command, List<EnvVar> env) {}

  /** The role's image, else the engine's default for the version; one of them is required. */
  private static String image(PodInputs in) {
    Engine engine = in.engine();
    return in.role()
        .image()
        .or(() -> engine.defaultImage(in.version()))
        .orElseThrow(
            () ->
                new RenderException(
                    "spec.roles["
                        + in.index()
                        + "].image is required: engine "
                        + quote(engine.id())
                        + " names no default image"));
  }

  /** A take-over role runs as written; a managed one runs the engine's argv and env. */
  private static MainProcess mainProcess(
      PodInputs in, List<ContainerPort> ports, Optional<CacheAttachment> cache) {
    Role role = in.role();
    Engine engine = in.engine();
    if (role.isTakeOver()) {
      return new MainProcess(role.command(), role.env());
    }
    List<String> command =
        engine.commandFor(
            ManagedRole.builder()
                .model(in.model())
                .addAllExtraArgs(role.extraArgs())
                .port(ports.get(0).containerPort())
                .engineVersion(in.version())
                .attachment(in.request())
                .build(),
            cache);
    List<EnvVar> env = cache.map(c -> engine.renderEnv(role.env(), c)).orElse(role.env());
    return new MainProcess(command, env);
  }

  private static Map<String, String> labels(PodInputs in) {
    Map<String, String> labels = new LinkedHashMap<>();
    labels.put("app.kubernetes.io/name", "model-deployment");
    labels.put(Keys.INSTANCE, in.name());
    labels.put(Keys.COMPONENT, in.role().name());
    labels.put(Keys.MANAGED_BY, MANAGER);
    labels.put("modeldeployment.gpustack.ai/role-kind", in.role().kind().name());
    labels.put(Keys.POD_ORDINAL, Integer.toString(in.ordinal()));
    return labels;
  }

  /** Container {@code main}: unprivileged, with the role's resources and ports. */
  private static Container container(
      Role role, String image, MainProcess main, List<ContainerPort> ports) {
    Container container = new Container();
    container.setName(MAIN);
    container.setImage(image);
    container.setCommand(main.command());
    container.setEnv(
        main.env().stream()
            .map(
                e -> {
                  io.fabric8.kubernetes.api.model.EnvVar env =
                      new io.fabric8.kubernetes.api.model.EnvVar();
                  env.setName(e.name());
                  env.setValue(e.value());
                  return env;
                })
            .toList());
    SecurityContext security = new SecurityContext();
    security.setAllowPrivilegeEscalation(false);
    Capabilities capabilities = new Capabilities();
    capabilities.setDrop(List.of("ALL"));
    security.setCapabilities(capabilities);
    container.setSecurityContext(security);
    role.resources()
        .ifPresent(
            r -> {
              ResourceRequirements resources = new ResourceRequirements();
              resources.setRequests(quantities(r.requests()));
              resources.setLimits(quantities(r.limits()));
              container.setResources(resources);
            });
    container.setPorts(
        ports.stream()
            .map(
                p -> {
                  io.fabric8.kubernetes.api.model.ContainerPort port =
                      new io.fabric8.kubernetes.api.model.ContainerPort();
                  port.setName(p.name().orElse(null));
                  port.setContainerPort(p.containerPort());
                  return port;
                })
            .toList());
    return container;
  }

  /** The replica's name, labels and annotations, owned by its ModelDeployment. */
  private static ObjectMeta metadata(
      PodInputs in, Map<String, String> labels, Map<String, String> annotations) {
    ObjectMeta meta = new ObjectMeta();
    meta.setName(in.name() + "-" + in.role().name() + "-" + in.ordinal());
    meta.setNamespace(in.namespace());
    meta.setLabels(labels);
    meta.setAnnotations(annotations);
    OwnerReference owner = new OwnerReference();
    owner.setApiVersion(in.apiVersion());
    owner.setKind(in.kind());
    owner.setName(in.name());
    owner.setUid(in.uid());
    owner.setController(true);
    owner.setBlockOwnerDeletion(true);
    meta.setOwnerReferences(List.of(owner));
    return meta;
  }

  private static Map<String, Quantity> quantities(Map<String, String> byName) {
    Map<String, Quantity> out = new TreeMap<>();
    byName.forEach((name, amount) -> out.put(name, new Quantity(amount)));
    return out;
  }

  private static String name(ModelDeployment md) {
    return md.getMetadata() == null ? "" : md.getMetadata().getName();
  }
}
