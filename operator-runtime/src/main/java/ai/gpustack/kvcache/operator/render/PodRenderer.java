package ai.gpustack.kvcache.operator.render;

import static ai.gpustack.kvcache.api.Quoting.quote;

import ai.gpustack.kvcache.admission.DeploymentRules;
import ai.gpustack.kvcache.api.Condition;
import ai.gpustack.kvcache.api.ContainerPort;
import ai.gpustack.kvcache.api.Dtype;
import ai.gpustack.kvcache.api.EffectiveSettings;
import ai.gpustack.kvcache.api.EnvVar;
import ai.gpustack.kvcache.api.KvCacheRef;
import ai.gpustack.kvcache.api.KvCacheStatus;
import ai.gpustack.kvcache.api.ModelDeploymentSpec;
import ai.gpustack.kvcache.api.ProblemsException;
import ai.gpustack.kvcache.api.Role;
import ai.gpustack.kvcache.api.SpellingCheck;
import ai.gpustack.kvcache.cluster.ClusterView;
import ai.gpustack.kvcache.resources.KVCacheBackend;
import ai.gpustack.kvcache.resources.KVCachePool;
import ai.gpustack.kvcache.resources.KVCachePoolBinding;
import ai.gpustack.kvcache.resources.Keys;
import ai.gpustack.kvcache.resources.ModelDeployment;
import ai.gpustack.kvcache.spi.AttachmentRequest;
import ai.gpustack.kvcache.spi.CacheAttachment;
import ai.gpustack.kvcache.spi.ClientConfigFile;
import ai.gpustack.kvcache.spi.DtypeVerdict;
import ai.gpustack.kvcache.spi.Engine;
import ai.gpustack.kvcache.spi.EngineRegistry;
import ai.gpustack.kvcache.spi.ManagedRole;
import ai.gpustack.kvcache.spi.Vehicle;
import io.fabric8.kubernetes.api.model.ContainerBuilder;
import io.fabric8.kubernetes.api.model.EnvVarBuilder;
import io.fabric8.kubernetes.api.model.OwnerReferenceBuilder;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.PodBuilder;
import io.fabric8.kubernetes.api.model.VolumeBuilder;
import io.fabric8.kubernetes.api.model.VolumeMountBuilder;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/**
 * Renders a ModelDeployment into its desired Pods: bare Pods, one per replica ordinal, container
 * {@code main}, the engine's whole argv folded into {@code command}, and the pod-spec hash stamped
 * last. Pure and thread-safe: the same inputs give the same Pods, byte for byte.
 */
public final class PodRenderer {
  public static final String MAIN = "main";
  public static final String MANAGER = "kvcache-operator";

  public static final String DOMAIN_REGISTERED = "DomainRegistered";
  public static final String CACHE_ATTACHED = "CacheAttached";
  public static final String DTYPE_ACCEPTED = "DtypeAccepted";

  private final EngineRegistry engines;

  public PodRenderer(EngineRegistry engines) {
    this.engines = engines;
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
    List<Condition> conditions = new ArrayList<>();
    Optional<KVCachePoolBinding> binding = Optional.empty();
    Optional<KvCacheStatus> kvCache = Optional.empty();
    Optional<AttachmentRequest> attachment = Optional.empty();
    Optional<String> held = Optional.empty();
    boolean allTakeOver = spec.roles().stream().allMatch(Role::isTakeOver);

    if (spec.kvCache().isEmpty()) {
      conditions.add(
          Conditions.of(DOMAIN_REGISTERED, true, "NotApplicable", "spec.kvCache names no pool"));
      conditions.add(
          Conditions.of(CACHE_ATTACHED, true, "NotApplicable", "spec.kvCache names no pool"));
      conditions.add(
          Conditions.of(DTYPE_ACCEPTED, true, "NotApplicable", "spec.kvCache names no pool"));
    } else {
      KvCacheRef ref = spec.kvCache().get();
      binding = cluster.binding(md.getMetadata().getNamespace(), ref.poolRef().name());
      Resolved resolved = resolve(binding, ref, cluster, conditions);
      kvCache = resolved.status();
      attachment =
          resolved
              .endpoint()
              .map(
                  endpoint -> {
                    KVCachePoolBinding b = resolved.binding();
                    return AttachmentRequest.builder()
                        .vehicle(Vehicle.OPERATOR_ROLE)
                        .clientEndpoint(endpoint)
                        .domain(b.getSpec().domain())
                        .tenant(
                            resolved.tenants()
                                ? Optional.of(b.getSpec().domain().name())
                                : Optional.empty())
                        .dtype(settings.kvCacheDtypeOwned() ? dtype(b) : Optional.empty())
                        .engineVersion(version)
                        .build();
                  });
      if (allTakeOver) {
        conditions.add(
            Conditions.unknown(
                CACHE_ATTACHED,
                "Unmanaged",
                "every role sets command: the operator attaches nothing"));
      } else if (attachment.isPresent()) {
        conditions.add(
            Conditions.of(
                CACHE_ATTACHED,
                true,
                "Attached",
                "replicas connect to " + attachment.get().clientEndpoint()));
      }
      held = dtypeAccepted(engine, version, binding, attachment, settings, allTakeOver, conditions);
    }

    List<Rendering.RolePlan> plans = new ArrayList<>();
    for (int r = 0; r < spec.roles().size(); r++) {
      Role role = spec.roles().get(r);
      List<Pod> pods = new ArrayList<>();
      for (int ordinal = 0; ordinal < role.replicas(); ordinal++) {
        pods.add(
            pod(
                md,
                role,
                r,
                ordinal,
                engine,
                version,
                role.isTakeOver()
                    ? Optional.empty()
                    : attachment.map(a -> a.withRoleKind(role.kind()))));
      }
      plans.add(new Rendering.RolePlan(role.name(), role.isTakeOver(), List.copyOf(pods)));
    }
    return new Rendering(List.copyOf(plans), binding, kvCache, List.copyOf(conditions), held);
  }

  private record Resolved(
      Optional<KvCacheStatus> status,
      Optional<String> endpoint,
      boolean tenants,
      KVCachePoolBinding binding) {}

  /**
   * DomainRegistered and, when the cache cannot attach, CacheAttached; the endpoint when it can.
   */
  private static Resolved resolve(
      Optional<KVCachePoolBinding> found,
      KvCacheRef ref,
      ClusterView cluster,
      List<Condition> conditions) {
    if (found.isEmpty() || found.get().getSpec() == null) {
      String msg = "KVCachePoolBinding " + quote(ref.poolRef().name()) + " does not exist";
      conditions.add(Conditions.of(DOMAIN_REGISTERED, false, "BindingNotFound", msg));
      conditions.add(
          Conditions.of(
              CACHE_ATTACHED, false, "BindingNotFound", msg + ": no store connector is rendered"));
      return new Resolved(Optional.empty(), Optional.empty(), false, null);
    }
    KVCachePoolBinding binding = found.get();
    String poolName = binding.getSpec().poolRef().name();
    Optional<KvCacheStatus> status =
        Optional.of(
            KvCacheStatus.builder()
                .binding(ref.poolRef().name())
                .pool(poolName)
                .domain(binding.getSpec().domain())
                .build());
    if (binding.getMetadata().getDeletionTimestamp() != null) {
      String msg = "KVCachePoolBinding " + quote(ref.poolRef().name()) + " is being deleted";
      conditions.add(Conditions.of(DOMAIN_REGISTERED, false, "BindingDeleting", msg));
      conditions.add(
          Conditions.of(
              CACHE_ATTACHED, false, "BindingDeleting", msg + ": no store connector is rendered"));
      return new Resolved(status, Optional.empty(), false, binding);
    }
    conditions.add(
        Conditions.of(
            DOMAIN_REGISTERED,
            true,
            "Registered",
            "domain " + quote(binding.getSpec().domain().name()) + " on pool " + quote(poolName)));
    Optional<KVCachePool> pool = cluster.pool(poolName);
    if (pool.isEmpty() || pool.get().getSpec() == null) {
      conditions.add(
          Conditions.of(
              CACHE_ATTACHED,
              false,
              "PoolNotFound",
              "KVCachePool " + quote(poolName) + " does not exist"));
      return new Resolved(status, Optional.empty(), false, binding);
    }
    Optional<KVCacheBackend> backend =
        pool.get().getSpec().backends().stream().findFirst().flatMap(cluster::backend);
    Optional<String> endpoint =
        backend
            .flatMap(
                b -> b.getSpec() == null ? Optional.empty() : b.getSpec().connection().external())
            .map(e -> e.clientEndpoint())
            .or(
                () ->
                    pool.get().getStatus() == null
                        ? Optional.empty()
                        : pool.get().getStatus().clientEndpoint());
    if (endpoint.isEmpty()) {
      conditions.add(
          Conditions.of(
              CACHE_ATTACHED,
              false,
              "EndpointNotPublished",
              "KVCachePool " + quote(poolName) + " has no client endpoint: check its backend"));
      return new Resolved(status, Optional.empty(), false, binding);
    }
    boolean tenants = backend.map(b -> b.getSpec().multiTenancy()).orElse(true);
    return new Resolved(status, endpoint, tenants, binding);
  }

  private static Optional<Dtype> dtype(KVCachePoolBinding binding) {
    try {
      return Optional.of(binding.getSpec().domain().checkedDtype());
    } catch (ProblemsException e) {
      return Optional.empty();
    }
  }

  /** Adds DtypeAccepted; returns why the rollout is held, when it is. */
  private Optional<String> dtypeAccepted(
      Engine engine,
      Optional<String> version,
      Optional<KVCachePoolBinding> binding,
      Optional<AttachmentRequest> attachment,
      EffectiveSettings settings,
      boolean allTakeOver,
      List<Condition> conditions) {
    if (!settings.kvCacheDtypeOwned()) {
      conditions.add(
          Conditions.of(
              DTYPE_ACCEPTED,
              true,
              "NotOwned",
              "model-deployment-kv-cache-dtype-owned is off: no dtype is rendered"));
      return Optional.empty();
    }
    if (allTakeOver || attachment.isEmpty() || binding.isEmpty()) {
      conditions.add(Conditions.of(DTYPE_ACCEPTED, true, "NotApplicable", "no dtype is rendered"));
      return Optional.empty();
    }
    String dtype = binding.get().getSpec().domain().dtype();
    if (settings.spellingCheck() == SpellingCheck.Off) {
      conditions.add(
          Conditions.of(
              DTYPE_ACCEPTED,
              true,
              "CheckDisabled",
              "kv-cache-dtype-spelling-check is Off: " + quote(dtype) + " is passed unchecked"));
      return Optional.empty();
    }
    DtypeVerdict verdict = engine.checkDtype(dtype, version);
    if (verdict.accepted()) {
      conditions.add(
          Conditions.of(
              DTYPE_ACCEPTED,
              true,
              "Accepted",
              "engine "
                  + quote(engine.id())
                  + " accepts "
                  + quote(dtype)
                  + " (table "
                  + verdict.table()
                  + ")"));
      return Optional.empty();
    }
    String why =
        DeploymentRules.spellingVerdict(engine, version, binding.get(), engines).orElseThrow();
    if (settings.spellingCheck() == SpellingCheck.Warn) {
      conditions.add(Conditions.of(DTYPE_ACCEPTED, false, "SpellingUnverified", why));
      return Optional.empty();
    }
    String held =
        why
            + ". The rollout is held: replicas keep their last good render (see 'If new Pods fail"
            + " argument parsing' in the upgrade guide)";
    conditions.add(Conditions.of(DTYPE_ACCEPTED, false, "SpellingRejectedByEngine", held));
    return Optional.of(held);
  }

  private static Pod pod(
      ModelDeployment md,
      Role role,
      int index,
      int ordinal,
      Engine engine,
      Optional<String> version,
      Optional<AttachmentRequest> attachment) {
    String image =
        role.image()
            .or(() -> engine.defaultImage(version))
            .orElseThrow(
                () ->
                    new RenderException(
                        "spec.roles["
                            + index
                            + "].image is required: engine "
                            + quote(engine.id())
                            + " names no default image"));
    List<ContainerPort> ports =
        role.ports().isEmpty()
            ? List.of(
                ContainerPort.builder().name("http").containerPort(engine.defaultPort()).build())
            : role.ports();
    Optional<CacheAttachment> cache = attachment.map(engine::attachment);
    List<String> command;
    List<EnvVar> env;
    if (role.isTakeOver()) {
      command = role.command();
      env = role.env();
    } else {
      command =
          engine.renderCommand(
              ManagedRole.builder()
                  .model(md.getSpec().model().name())
                  .addAllExtraArgs(role.extraArgs())
                  .port(ports.get(0).containerPort())
                  .engineVersion(version)
                  .attachment(attachment)
                  .build());
      env = cache.map(c -> engine.renderEnv(role.env(), c)).orElse(role.env());
    }
    Map<String, String> labels = new LinkedHashMap<>();
    labels.put("app.kubernetes.io/name", "model-deployment");
    labels.put(Keys.INSTANCE, md.getMetadata().getName());
    labels.put(Keys.COMPONENT, role.name());
    labels.put(Keys.MANAGED_BY, MANAGER);
    labels.put("modeldeployment.gpustack.ai/role-kind", role.kind().name());
    labels.put(Keys.POD_ORDINAL, Integer.toString(ordinal));
    Map<String, String> annotations = new LinkedHashMap<>();
    Optional<ClientConfigFile> config = cache.flatMap(CacheAttachment::clientConfig);
    config.ifPresent(c -> annotations.put(Keys.CLIENT_CONFIG, c.content()));
    ContainerBuilder container =
        new ContainerBuilder()
            .withName(MAIN)
            .withImage(image)
            .withCommand(command)
            .withEnv(
                env.stream()
                    .map(e -> new EnvVarBuilder().withName(e.name()).withValue(e.value()).build())
                    .toList());
    for (ContainerPort p : ports) {
      container
          .addNewPort()
          .withName(p.name().orElse(null))
          .withContainerPort(p.containerPort())
          .endPort();
    }
    PodBuilder pod =
        new PodBuilder()
            .withNewMetadata()
            .withName(md.getMetadata().getName() + "-" + role.name() + "-" + ordinal)
            .withNamespace(md.getMetadata().getNamespace())
            .withLabels(labels)
            .withAnnotations(annotations)
            .withOwnerReferences(
                new OwnerReferenceBuilder()
                    .withApiVersion(md.getApiVersion())
                    .withKind(md.getKind())
                    .withName(md.getMetadata().getName())
                    .withUid(md.getMetadata().getUid())
                    .withController(true)
                    .withBlockOwnerDeletion(true)
                    .build())
            .endMetadata();
    config.ifPresent(
        c -> {
          container.addToVolumeMounts(
              new VolumeMountBuilder()
                  .withName(ClientConfigFile.VOLUME)
                  .withMountPath(c.directory())
                  .withReadOnly(true)
                  .build());
          pod.editOrNewSpec()
              .addToVolumes(
                  new VolumeBuilder()
                      .withName(ClientConfigFile.VOLUME)
                      .withNewDownwardAPI()
                      .addNewItem()
                      .withPath(c.fileName())
                      .withNewFieldRef()
                      .withFieldPath("metadata.annotations['" + Keys.CLIENT_CONFIG + "']")
                      .endFieldRef()
                      .endItem()
                      .endDownwardAPI()
                      .build())
              .endSpec();
        });
    Pod rendered =
        pod.editOrNewSpec()
            .withContainers(container.build())
            .withRestartPolicy("Always")
            .endSpec()
            .build();
    rendered.getMetadata().getAnnotations().put(Keys.POD_SPEC_HASH, PodSpecHash.of(rendered));
    return rendered;
  }

  private static String name(ModelDeployment md) {
    return md.getMetadata() == null ? "" : md.getMetadata().getName();
  }
}
