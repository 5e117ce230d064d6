package ai.gpustack.kvcache.admission;

import static ai.gpustack.kvcache.api.Quoting.quote;

import ai.gpustack.kvcache.api.Dns;
import ai.gpustack.kvcache.api.EffectiveSettings;
import ai.gpustack.kvcache.api.ModelDeploymentSpec;
import ai.gpustack.kvcache.api.Problems;
import ai.gpustack.kvcache.api.Role;
import ai.gpustack.kvcache.api.SpellingCheck;
import ai.gpustack.kvcache.cluster.ClusterView;
import ai.gpustack.kvcache.resources.KVCachePoolBinding;
import ai.gpustack.kvcache.resources.ModelDeployment;
import ai.gpustack.kvcache.spi.DtypeVerdict;
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
 * ModelDeployment admission: shape, identity fields, owned keys, the dtype ownership rule and the
 * engine's spelling check. The operator calls {@link #spellingVerdict} too, so both word it alike.
 */
public final class DeploymentRules {
  private final EngineRegistry engines;
  private final ClusterView cluster;
  private final ObjectReader reader;

  DeploymentRules(EngineRegistry engines, ClusterView cluster, ObjectReader reader) {
    this.engines = engines;
    this.cluster = cluster;
    this.reader = reader;
  }

  Decision decide(Request request) {
    if (!request.isCreate() && !request.isUpdate()) {
      return Decision.allow(List.of());
    }
    ModelDeployment md = reader.read(request.object(), ModelDeployment.class);
    Problems problems = Problems.create();
    List<String> warnings = new ArrayList<>();
    ModelDeploymentSpec spec = md.getSpec();
    if (spec == null) {
      problems.required("spec", "a deployment names its model, its engine and its roles");
      return Admission.verdict(request, problems, warnings);
    }
    shape(spec, problems);
    Optional<Engine> engine = engines.find(spec.engine().name());
    if (engine.isEmpty()) {
      problems.notSupported(
          "spec.engine.name",
          spec.engine().name(),
          Refusal.DEPLOYMENT_ENGINE_UNKNOWN.detail(engines.unknown(spec.engine().name())));
    }
    if (request.isUpdate()) {
      ModelDeployment old = reader.read(request.oldObject(), ModelDeployment.class);
      if (old.getSpec() != null) {
        identity(old.getSpec(), spec, problems);
      }
    }
    boolean deleting = md.getMetadata() != null && md.getMetadata().getDeletionTimestamp() != null;
    EffectiveSettings settings = cluster.settings();
    if (engine.isPresent() && !deleting) {
      ownedKeys(spec, engine.get(), settings.kvCacheDtypeOwned(), problems);
    }
    if (request.isCreate()
        && engine.isPresent()
        && spec.kvCache().isPresent()
        && settings.kvCacheDtypeOwned()
        && settings.spellingCheck() != SpellingCheck.Off) {
      String namespace = namespace(md, request);
      cluster
          .binding(namespace, spec.kvCache().get().poolRef().name())
          .flatMap(
              b ->
                  spellingVerdict(engine.get(), spec.engine().version(), b)
                      .map(msg -> Map.entry(b, msg)))
          .ifPresent(
              rejected -> {
                if (settings.spellingCheck() == SpellingCheck.Enforce) {
                  problems.invalid(
                      "spec.kvCache.poolRef.name",
                      rejected.getKey().getMetadata().getName(),
                      rejected.getValue());
                } else {
                  warnings.add(rejected.getValue());
                }
              });
    }
    return Admission.verdict(request, problems, warnings);
  }

  static String namespace(ModelDeployment md, Request request) {
    String ns = md.getMetadata() == null ? null : md.getMetadata().getNamespace();
    return ns == null || ns.isEmpty() ? request.namespace() : ns;
  }

  /**
   * Why {@code engine} at {@code version} would fail on {@code binding}'s dtype, or empty when it
   * accepts it.
   */
  public static Optional<String> spellingVerdict(
      Engine engine, Optional<String> version, KVCachePoolBinding binding, EngineRegistry engines) {
    if (binding.getSpec() == null) {
      return Optional.empty();
    }
    String dtype = binding.getSpec().domain().dtype();
    if (engine.acceptsDtype(dtype, version)) {
      return Optional.empty();
    }
    DtypeVerdict verdict = engine.checkDtype(dtype, version);
    return Optional.of(
        Refusal.DTYPE_REJECTED_BY_ENGINE.detail(
            quote(binding.getMetadata().getName()),
            quote(dtype),
            quote(engine.id()),
            version.map(v -> " " + v).orElse(""),
            verdict.table() + verdict.source().map(s -> ", read from " + s).orElse(""),
            engine.id(),
            verdict.spellings().isEmpty()
                ? "nothing at that version"
                : String.join(" ", verdict.spellings()),
            String.join(" ", engines.portableSpellings())));
  }

  private Optional<String> spellingVerdict(
      Engine engine, Optional<String> version, KVCachePoolBinding binding) {
    return spellingVerdict(engine, version, binding, engines);
  }

  private static void shape(ModelDeploymentSpec spec, Problems problems) {
    List<Role> roles = spec.roles();
    if (roles.isEmpty()) {
      problems.required(
          "spec.roles", Refusal.DEPLOYMENT_ROLES_REQUIRED.detail(ModelDeploymentSpec.MAX_ROLES));
    } else if (roles.size() > ModelDeploymentSpec.MAX_ROLES) {
      problems.tooMany(
          "spec.roles",
          Refusal.DEPLOYMENT_ROLES_TOO_MANY.detail(roles.size(), ModelDeploymentSpec.MAX_ROLES));
    }
    Set<String> names = new HashSet<>();
    for (int i = 0; i < roles.size(); i++) {
      Role role = roles.get(i);
      if (!Dns.isLabel(role.name())) {
        problems.invalid(
            "spec.roles[" + i + "].name",
            role.name(),
            Refusal.DEPLOYMENT_ROLE_NAME.detail(Dns.labelRule()));
      } else if (!names.add(role.name())) {
        problems.duplicate(
            "spec.roles[" + i + "].name", role.name(), Refusal.DEPLOYMENT_ROLE_DUPLICATE.detail());
      }
      if (role.replicas() < 0 || role.replicas() > 1024) {
        problems.invalid(
            "spec.roles[" + i + "].replicas",
            Integer.toString(role.replicas()),
            Refusal.DEPLOYMENT_REPLICAS.detail());
      }
    }
  }

  private static void identity(
      ModelDeploymentSpec before, ModelDeploymentSpec after, Problems problems) {
    if (!before.model().equals(after.model())) {
      problems.forbidden("spec.model", Refusal.DEPLOYMENT_IDENTITY.detail("model"));
    }
    if (!before.engine().name().equals(after.engine().name())) {
      problems.forbidden("spec.engine.name", Refusal.DEPLOYMENT_IDENTITY.detail("engine.name"));
    }
    if (!before.kvCache().equals(after.kvCache())) {
      problems.forbidden("spec.kvCache", Refusal.DEPLOYMENT_IDENTITY.detail("kvCache"));
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
          Refusal.DEPLOYMENT_IDENTITY.detail("the role set (" + String.join(", ", oldNames) + ")"));
    }
    for (int i = 0; i < after.roles().size(); i++) {
      Role role = after.roles().get(i);
      Role was = old.get(role.name());
      if (was == null) {
        continue;
      }
      if (was.kind() != role.kind()) {
        problems.forbidden(
            "spec.roles[" + i + "].kind", Refusal.DEPLOYMENT_IDENTITY.detail("kind"));
      }
      if (!was.command().equals(role.command())) {
        problems.forbidden(
            "spec.roles[" + i + "].command", Refusal.DEPLOYMENT_IDENTITY.detail("command"));
      }
    }
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
      for (String flag : new TreeSet<>(engine.ownedFlags())) {
        for (FlagOccurrence o : reader.find(role.extraArgs(), flag)) {
          problems.invalid(
              path + ".extraArgs[" + o.index() + "]",
              o.token().written(),
              Refusal.DEPLOYMENT_OWNED_FLAG.detail(
                  quote(flag),
                  quote(engine.id()),
                  "it renders the cache connector; this entry passes " + o.describe(engine.id())));
        }
      }
      for (int k = 0; k < role.env().size(); k++) {
        String name = role.env().get(k).name();
        if (engine.ownedEnv().contains(name)) {
          problems.invalid(
              path + ".env[" + k + "].name",
              name,
              Refusal.DEPLOYMENT_OWNED_ENV.detail(quote(name), quote(engine.id())));
        }
      }
      if (dtypeRule) {
        for (FlagOccurrence o : reader.find(role.extraArgs(), engine.dtypeFlag())) {
          String reads =
              o.token().spelling().equals(engine.dtypeFlag())
                  ? ""
                  : " (this entry passes " + o.describe(engine.id()) + ")";
          problems.invalid(
              path + ".extraArgs[" + o.index() + "]",
              o.token().written(),
              Refusal.DEPLOYMENT_DTYPE_FLAG.detail(reads));
        }
      }
    }
  }
}
