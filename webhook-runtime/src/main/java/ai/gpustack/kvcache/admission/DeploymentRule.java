package ai.gpustack.kvcache.admission;

import static ai.gpustack.kvcache.api.Quoting.quote;

import ai.gpustack.kvcache.api.Dns;
import ai.gpustack.kvcache.api.EffectiveSettings;
import ai.gpustack.kvcache.api.Message;
import ai.gpustack.kvcache.api.ModelDeploymentSpec;
import ai.gpustack.kvcache.api.Problem;
import ai.gpustack.kvcache.api.ProblemType;
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
import ai.gpustack.kvcache.spi.FlagOccurrence;
import ai.gpustack.kvcache.spi.FlagReader;
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
  /** Reason word of a refused unknown engine, on both roads. */
  static final String ENGINE_NOT_REGISTERED = "EngineNotRegistered";

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
      problems.add(engineUnknown(engines, "spec.engine.name", spec.engine().name()));
    }
    Optional<ModelDeploymentSpec> before = Optional.empty();
    if (request.isUpdate()) {
      before =
          Optional.ofNullable(reader.read(request.oldObject(), ModelDeployment.class).getSpec());
      before.ifPresent(o -> identity(o, spec, problems));
    }
    boolean deleting = md.getMetadata() != null && md.getMetadata().getDeletionTimestamp() != null;
    EffectiveSettings settings = cluster.settings();
    if (engine.isPresent() && !deleting) {
      ownedKeys(spec, engine.get(), settings.kvCacheDtypeOwned(), problems);
      RoleLimits.check(spec, before, engine.get(), settings, problems);
      if (settings.kvCacheDtypeOwned() && spec.kvCache().isPresent()) {
        warnings.addAll(kvFormatFlags(spec, engine.get()));
      }
    }
    if (request.isCreate() && engine.isPresent() && spec.kvCache().isPresent()) {
      Attachment attachment =
          resolver.resolve(
              new BindingRef(
                  namespace(md, request),
                  spec.kvCache().get().poolRef().name(),
                  "spec.kvCache.poolRef.name"),
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

  /** An engine name no module registers, at {@code field}: the same refusal on both roads. */
  static Problem engineUnknown(EngineRegistry engines, String field, String name) {
    return Problem.builder()
        .field(field)
        .type(ProblemType.NOT_SUPPORTED)
        .value(name)
        .detail(Message.ENGINE_UNKNOWN.detail(engines.unknown(name)))
        .reason(ENGINE_NOT_REGISTERED)
        .build();
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

  /** A warning per flag a role passes that changes the KV representation beside the dtype. */
  private static List<String> kvFormatFlags(ModelDeploymentSpec spec, Engine engine) {
    List<String> warnings = new ArrayList<>();
    for (int i = 0; i < spec.roles().size(); i++) {
      Role role = spec.roles().get(i);
      if (role.isTakeOver()) {
        continue;
      }
      for (OwnedFlags.KvFormatHit hit :
          OwnedFlags.kvFormatFlags(engine, spec.engine().version(), role.extraArgs())) {
        warnings.add(
            Message.KV_FORMAT_FLAG.detail(
                "spec.roles[" + i + "].extraArgs[" + hit.occurrence().index() + "]",
                hit.occurrence().describe(engine.id()),
                hit.effect()));
      }
    }
    return warnings;
  }

  private static void ownedKeys(
      ModelDeploymentSpec spec, Engine engine, boolean dtypeOwned, Problems problems) {
    FlagReader reader = engine.flagReader(spec.engine().version());
    boolean dtypeRule = dtypeOwned && spec.kvCache().isPresent();
    for (int i = 0; i < spec.roles().size(); i++) {
      Role role = spec.roles().get(i);
      if (role.isTakeOver()) {
        continue;
      }
      String path = "spec.roles[" + i + "]";
      for (OwnedFlags.Hit hit : OwnedFlags.find(engine, reader, role.extraArgs(), dtypeRule)) {
        FlagOccurrence o = hit.occurrence();
        String detail;
        if (hit.dtype()) {
          detail =
              Message.DEPLOYMENT_DTYPE_FLAG.detail(
                  quote(o.flag()),
                  o.token().spelling().equals(o.flag())
                      ? ""
                      : " (this entry passes " + o.describe(engine.id()) + ")");
        } else {
          detail =
              Message.DEPLOYMENT_OWNED_FLAG.detail(
                  quote(o.flag()),
                  quote(engine.id()),
                  "it renders the cache connector; this entry passes " + o.describe(engine.id()));
        }
        problems.add(
            Problem.builder()
                .field(path + ".extraArgs[" + o.index() + "]")
                .type(ProblemType.INVALID)
                .value(o.token().written())
                .detail(detail)
                .reason(hit.reason())
                .build());
      }
      for (int k = 0; k < role.env().size(); k++) {
        String name = role.env().get(k).name();
        if (engine.ownedEnv().contains(name)) {
          problems.invalid(
              path + ".env[" + k + "].name",
              name,
              Message.DEPLOYMENT_OWNED_ENV.detail(quote(name), quote(engine.id())));
        }
      }
    }
  }
}
