package ai.gpustack.kvcache.admission;

import static ai.gpustack.kvcache.api.Quoting.quote;

import ai.gpustack.kvcache.api.Dns;
import ai.gpustack.kvcache.api.EffectiveSettings;
import ai.gpustack.kvcache.api.EnvVar;
import ai.gpustack.kvcache.api.Message;
import ai.gpustack.kvcache.api.ModelDeploymentSpec;
import ai.gpustack.kvcache.api.Problems;
import ai.gpustack.kvcache.api.Role;
import ai.gpustack.kvcache.attach.Attachment;
import ai.gpustack.kvcache.attach.AttachmentResolver;
import ai.gpustack.kvcache.attach.BindingRef;
import ai.gpustack.kvcache.attach.OwnedFlags;
import ai.gpustack.kvcache.attach.Refusal;
import ai.gpustack.kvcache.attach.Workload;
import ai.gpustack.kvcache.cluster.ClusterView;
import ai.gpustack.kvcache.resources.ModelDeployment;
import ai.gpustack.kvcache.spi.Engine;
import ai.gpustack.kvcache.spi.EngineRegistry;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.TreeSet;
import java.util.function.Function;
import java.util.stream.Collectors;

/**
 * ModelDeployment admission: shape, identity fields, owned keys, the dtype ownership rule, and, on
 * create, the attachment's dtype ruling (the engine's spelling check), as the operator will apply
 * it.
 */
final class DeploymentRule implements Rule {
  private final EngineRegistry engines;
  private final AttachmentResolver resolver;
  private final ClusterView cluster;
  private final ObjectReader reader;

  DeploymentRule(
      EngineRegistry engines,
      AttachmentResolver resolver,
      ClusterView cluster,
      ObjectReader reader) {
    this.engines = engines;
    this.resolver = resolver;
    this.cluster = cluster;
    this.reader = reader;
  }

  @Override
  public Decision decide(Request request) {
    ModelDeployment md = reader.read(request.object(), ModelDeployment.class);
    Problems problems = Problems.create();
    List<String> warnings = new ArrayList<>();
    ModelDeploymentSpec spec = md.getSpec();
    if (spec == null) {
      problems.required("spec", "a deployment names its model, its engine and its roles");
      return Decision.of(request.subject(), problems, warnings);
    }
    shape(spec, problems);
    Optional<Engine> engine = engines.find(spec.engine().name());
    if (engine.isEmpty()) {
      problems.add(Refusal.engineNotRegistered(engines, "spec.engine.name", spec.engine().name()));
    }
    Optional<ModelDeploymentSpec> before = Optional.empty();
    if (request.isUpdate()) {
      before =
          Optional.ofNullable(reader.read(request.oldObject(), ModelDeployment.class).getSpec());
      before.ifPresent(o -> identity(o, spec, problems));
    }
    boolean deleting = md.getMetadata() != null && md.getMetadata().getDeletionTimestamp() != null;
    boolean versionNew =
        before.map(b -> !b.engine().version().equals(spec.engine().version())).orElse(true);
    if (engine.isPresent() && versionNew && !deleting) {
      // A stored version its scheme does not read keeps working until it is changed.
      Refusal.engineVersionUnread(engine.get(), "spec.engine.version", spec.engine().version())
          .ifPresent(problems::add);
    }
    EffectiveSettings settings = cluster.settings();
    if (engine.isPresent() && !deleting) {
      ownedKeys(spec, engine.get(), settings.kvCacheDtypeOwned(), problems, warnings);
      RoleLimits.check(spec, before, engine.get(), settings, problems);
    }
    if (request.isCreate() && engine.isPresent() && spec.kvCache().isPresent()) {
      Attachment attachment =
          resolver.resolve(
              BindingRef.deployment(namespace(md, request), spec.kvCache().get().poolRef().name()),
              Workload.admitted(Workload.MODEL_DEPLOYMENT, name(md, request)),
              engine.get(),
              spec.engine().version(),
              settings,
              cluster);
      // The store may come later; a dtype the engine would exit on is refused now.
      attachment.refusal().filter(Refusal::aboutDtype).ifPresent(r -> problems.add(r.problem()));
      warnings.addAll(attachment.warnings());
    }
    return Decision.of(request.subject(), problems, warnings);
  }

  private static String name(ModelDeployment md, Request request) {
    String name = md.getMetadata() == null ? null : md.getMetadata().getName();
    return name == null ? request.name() : name;
  }

  static String namespace(ModelDeployment md, Request request) {
    String ns = md.getMetadata() == null ? null : md.getMetadata().getNamespace();
    return ns == null || ns.isEmpty() ? request.namespace() : ns;
  }

  private static void shape(ModelDeploymentSpec spec, Problems problems) {
    List<Role> roles = spec.roles();
    if (roles.isEmpty()) {
      problems.required(
          "spec.roles", Message.DEPLOYMENT_ROLES_REQUIRED.detail(ModelDeploymentSpec.MAX_ROLES));
    } else if (roles.size() > ModelDeploymentSpec.MAX_ROLES) {
      problems.tooMany(
          "spec.roles",
          Message.DEPLOYMENT_ROLES_TOO_MANY.detail(roles.size(), ModelDeploymentSpec.MAX_ROLES));
    }
    Set<String> names = new HashSet<>();
    for (int i = 0; i < roles.size(); i++) {
      Role role = roles.get(i);
      if (!Dns.isLabel(role.name())) {
        problems.invalid(
            "spec.roles[" + i + "].name",
            role.name(),
            Message.DEPLOYMENT_ROLE_NAME.detail(Dns.labelRule()));
      } else if (!names.add(role.name())) {
        problems.duplicate(
            "spec.roles[" + i + "].name", role.name(), Message.DEPLOYMENT_ROLE_DUPLICATE.detail());
      }
      if (role.replicas() < 0 || role.replicas() > 1024) {
        problems.invalid(
            "spec.roles[" + i + "].replicas",
            Integer.toString(role.replicas()),
            Message.DEPLOYMENT_REPLICAS.detail());
      }
    }
  }

  private static void identity(
      ModelDeploymentSpec before, ModelDeploymentSpec after, Problems problems) {
    if (!before.model().equals(after.model())) {
      problems.forbidden("spec.model", Message.DEPLOYMENT_IDENTITY.detail("model"));
    }
    if (!before.engine().name().equals(after.engine().name())) {
      problems.forbidden("spec.engine.name", Message.DEPLOYMENT_IDENTITY.detail("engine.name"));
    }
    if (!before.kvCache().equals(after.kvCache())) {
      problems.forbidden("spec.kvCache", Message.DEPLOYMENT_IDENTITY.detail("kvCache"));
    }
    Map<String, Role> old =
        before.roles().stream()
            .collect(Collectors.toMap(Role::name, Function.identity(), (a, b) -> a));
    Set<String> oldNames = new TreeSet<>(old.keySet());
    Set<String> newNames =
        after.roles().stream().map(Role::name).collect(Collectors.toCollection(TreeSet::new));
    if (!oldNames.equals(newNames)) {
      problems.forbidden(
          "spec.roles",
          Message.DEPLOYMENT_IDENTITY.detail("the role set (" + String.join(", ", oldNames) + ")"));
    }
    for (int i = 0; i < after.roles().size(); i++) {
      Role role = after.roles().get(i);
      Role was = old.get(role.name());
      if (was == null) {
        continue;
      }
      if (was.kind() != role.kind()) {
        problems.forbidden(
            "spec.roles[" + i + "].kind", Message.DEPLOYMENT_IDENTITY.detail("kind"));
      }
      if (!was.command().equals(role.command())) {
        problems.forbidden(
            "spec.roles[" + i + "].command", Message.DEPLOYMENT_IDENTITY.detail("command"));
      }
    }
  }

  /**
   * The owned-keys rule on every managed role: refusals into {@code problems}, KV-format warnings
   * into {@code warnings}. The dtype is owned when the Setting is on and a pool is attached.
   */
  private static void ownedKeys(
      ModelDeploymentSpec spec,
      Engine engine,
      boolean dtypeOwned,
      Problems problems,
      List<String> warnings) {
    boolean dtypeRule = dtypeOwned && spec.kvCache().isPresent();
    String source =
        spec.kvCache().map(k -> "KVCachePoolBinding " + quote(k.poolRef().name())).orElse("");
    for (int i = 0; i < spec.roles().size(); i++) {
      Role role = spec.roles().get(i);
      if (role.isTakeOver()) {
        continue;
      }
      OwnedFlags.Verdict verdict =
          OwnedFlags.check(
              engine,
              spec.engine().version(),
              OwnedFlags.Subject.role(
                  role.name(),
                  "spec.roles[" + i + "]",
                  role.extraArgs(),
                  role.env().stream().map(EnvVar::name).toList()),
              dtypeRule,
              source);
      verdict.refusals().forEach(problems::add);
      warnings.addAll(verdict.warnings());
    }
  }
}
