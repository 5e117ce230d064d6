package ai.gpustack.kvcache.operator.migrate;

import ai.gpustack.kvcache.admission.Admission;
import ai.gpustack.kvcache.admission.Decision;
import ai.gpustack.kvcache.admission.Request;
import ai.gpustack.kvcache.admission.Route;
import ai.gpustack.kvcache.api.Dns;
import ai.gpustack.kvcache.api.Settings;
import ai.gpustack.kvcache.cluster.MemoryClusterView;
import ai.gpustack.kvcache.operator.migrate.Plan.Injected;
import ai.gpustack.kvcache.operator.migrate.Plan.Moved;
import ai.gpustack.kvcache.operator.migrate.Step.Action;
import ai.gpustack.kvcache.resources.KVCachePoolBinding;
import ai.gpustack.kvcache.resources.KvCacheSerialization;
import ai.gpustack.kvcache.resources.Setting;
import ai.gpustack.kvcache.spi.EngineRegistry;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.fabric8.kubernetes.api.model.HasMetadata;
import io.fabric8.kubernetes.client.utils.KubernetesSerialization;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/**
 * Turns a {@link Snapshot} into a {@link Plan}, touching nothing. Every object the plan would write
 * is run through the webhook's own rules, in the order the plan writes them and against the state
 * the earlier steps leave, with {@code model-deployment-kv-cache-dtype-owned} on (the state a
 * migration ends in): a refusal found here is the one the API server would answer.
 */
public final class Planner {
  static final String SETTING = Settings.KV_CACHE_DTYPE_OWNED.name();
  static final KubernetesSerialization SERIALIZATION = KvCacheSerialization.create();
  private static final ObjectMapper JSON = new ObjectMapper();

  private final EngineRegistry engines;

  public Planner(EngineRegistry engines) {
    this.engines = engines;
  }

  /**
   * Where a migration goes: its strategy, the new Binding (name, domain, the object itself) and the
   * suffix its derived names carry. A recorded migration's choices win over the request's.
   */
  record Target(
      Strategy strategy, String suffix, String newName, String domain, KVCachePoolBinding fresh) {}

  /**
   * The plan for {@code request} on {@code snapshot}, whose Binding {@code request.name()} must
   * exist. A record on it that does not read throws {@link IllegalArgumentException}.
   */
  public Plan plan(Snapshot snapshot, MigrationRequest request) {
    KVCachePoolBinding old =
        snapshot
            .binding(request.name())
            .orElseThrow(() -> new IllegalArgumentException("no Binding " + request.name()));
    Optional<MigrationRecord> recorded =
        MigrationRecord.read(
            Optional.ofNullable(old.getMetadata().getAnnotations())
                .map(a -> a.get(MigrationRecord.ANNOTATION)));
    PlanDraft draft = new PlanDraft();
    recorded.ifPresent(r -> conflicts(r, request).forEach(draft::refuse));
    Admission admission =
        new Admission(
            engines, MemoryClusterView.of(snapshot.objects()).withSetting(SETTING, "true"));
    Target target = target(snapshot, request, old, recorded, admission);
    refuseIfDeleting(old, recorded, request, draft);
    boolean settingOff = settingOff(snapshot, request, recorded, draft);
    createBinding(snapshot, request, target, admission, draft);
    Map<String, JsonNode> manifests =
        DeploymentMoves.manifests(snapshot, request.name(), recorded, target);
    DeploymentMoves moves = new DeploymentMoves(engines, snapshot, target, request.namespace());
    List<Moved> moved = moves.move(manifests, draft);
    List<Injected> injected =
        new InjectedWorkloads(engines, request, target.newName(), moves.planned())
            .find(snapshot, draft);
    patchTemplates(injected, request.namespace(), target.newName(), draft);
    if (settingOff) {
      restoreSetting(snapshot, recorded, draft);
    }
    deleteOldBinding(request, injected, draft);
    return new Plan(
        request,
        old,
        target.fresh(),
        record(recorded, request, target, manifests),
        recorded.isPresent(),
        moved,
        injected,
        draft.steps(),
        draft.refusals(),
        draft.warnings());
  }

  private static Target target(
      Snapshot snapshot,
      MigrationRequest request,
      KVCachePoolBinding old,
      Optional<MigrationRecord> recorded,
      Admission admission) {
    String suffix = suffix(request.dtype());
    Strategy strategy =
        recorded.map(MigrationRecord::strategy).or(request::strategy).orElse(Strategy.RECREATE);
    String newName = recorded.map(MigrationRecord::newBinding).orElse(newBindingName(request));
    String domain =
        recorded
            .map(MigrationRecord::domain)
            .or(request::domain)
            .orElseGet(
                () -> freeDomain(admission, old, newName, request.dtype(), snapshot, suffix));
    return new Target(
        strategy, suffix, newName, domain, newBinding(old, newName, domain, request.dtype()));
  }

  /** What a recorded migration chose that the request now contradicts, each a refusal. */
  private static List<String> conflicts(MigrationRecord r, MigrationRequest request) {
    String where =
        " is recorded on KVCachePoolBinding "
            + request.namespace()
            + "/"
            + request.name()
            + " (annotation "
            + MigrationRecord.ANNOTATION
            + ")";
    List<String> refusals = new ArrayList<>();
    if (!r.dtype().equals(request.dtype())) {
      refusals.add(
          "a migration to dtype \""
              + r.dtype()
              + "\""
              + where
              + rerun("--dtype", r.dtype(), false));
    }
    request
        .domain()
        .filter(d -> !d.equals(r.domain()))
        .ifPresent(
            d ->
                refusals.add(
                    "a migration to domain "
                        + r.domain()
                        + where
                        + rerun("--domain", r.domain(), true)));
    request
        .newBinding()
        .filter(n -> !n.equals(r.newBinding()))
        .ifPresent(
            n ->
                refusals.add(
                    "a migration to Binding "
                        + r.newBinding()
                        + where
                        + rerun("--new-binding", r.newBinding(), true)));
    String strategy = r.strategy().word();
    request
        .strategy()
        .filter(s -> s != r.strategy())
        .ifPresent(
            s ->
                refusals.add(
                    "a migration with strategy "
                        + strategy
                        + where
                        + rerun("--strategy", strategy, true)));
    return refusals;
  }

  /** How to run again to finish the recorded migration: with its value, or the option left out. */
  private static String rerun(String option, String value, boolean optional) {
    return "; run with " + option + " " + value + (optional ? " or without it" : " to finish it");
  }

  private static void refuseIfDeleting(
      KVCachePoolBinding old,
      Optional<MigrationRecord> recorded,
      MigrationRequest request,
      PlanDraft draft) {
    if (old.getMetadata().getDeletionTimestamp() != null && recorded.isEmpty()) {
      draft.refuse(
          "KVCachePoolBinding "
              + request.namespace()
              + "/"
              + request.name()
              + " is being deleted: its workloads are already on their way out; recreate them on"
              + " a new Binding by hand");
    }
  }

  /**
   * Turns the Setting off first when asked, or when a recorded run did; otherwise warns if it is
   * off now. Whether the plan turns it off (and so restores it at the end).
   */
  private static boolean settingOff(
      Snapshot snapshot,
      MigrationRequest request,
      Optional<MigrationRecord> recorded,
      PlanDraft draft) {
    boolean settingOff =
        request.settingOffWhileMigrating()
            || recorded.flatMap(MigrationRecord::settingWas).isPresent();
    if (settingOff) {
      draft.step(
          Action.SETTING_OFF,
          "Setting",
          Settings.NAMESPACE,
          SETTING,
          "turn the dtype Setting off while the deployments move (restored at the end)",
          List.of(settingPatch("false")),
          Optional.empty());
    } else if (!Settings.effective(Setting.values(snapshot.settings().stream()))
        .kvCacheDtypeOwned()) {
      draft.warn(
          List.of(
              "Setting "
                  + SETTING
                  + " is off: the new Binding's dtype is rendered once it is turned back on"));
    }
    return settingOff;
  }

  /** Creates the new Binding, unless one of that name declares the same domain already. */
  private static void createBinding(
      Snapshot snapshot,
      MigrationRequest request,
      Target target,
      Admission admission,
      PlanDraft draft) {
    String ns = request.namespace();
    String newName = target.newName();
    KVCachePoolBinding fresh = target.fresh();
    Optional<KVCachePoolBinding> existing = snapshot.binding(newName);
    if (existing.isPresent() && !sameDomain(existing.get(), fresh)) {
      draft.refuse(
          "KVCachePoolBinding "
              + ns
              + "/"
              + newName
              + " already exists and declares another domain or dtype; pass --new-binding with"
              + " an unused name");
    } else if (existing.isEmpty()) {
      Decision created = admit(admission, Route.KV_CACHE_POOL_BINDING, fresh);
      if (!created.allowed()) {
        draft.refuse("create KVCachePoolBinding " + ns + "/" + newName + ": " + created.message());
      }
      draft.warn(created.warnings());
    }
    draft.step(
        Action.CREATE_BINDING,
        "KVCachePoolBinding",
        ns,
        newName,
        "create the new Binding: pool "
            + fresh.getSpec().poolRef().name()
            + ", domain "
            + target.domain()
            + ", dtype "
            + request.dtype(),
        List.of("kubectl create -f " + newName + ".yaml   # the manifest above"),
        Optional.of(SERIALIZATION.convertValue(fresh, JsonNode.class)));
  }

  private static void patchTemplates(
      List<Injected> injected, String ns, String newName, PlanDraft draft) {
    for (Injected workload : injected) {
      if (workload.patched()) {
        draft.step(
            Action.PATCH_TEMPLATE,
            workload.kind(),
            ns,
            workload.name(),
            "point its Pod template at the new Binding (its owner rolls its Pods)",
            List.of(InjectedWorkloads.templatePatch(ns, workload.kind(), workload.name(), newName)),
            Optional.empty());
      }
    }
  }

  /** Restores the Setting to what it was before the first run turned it off. */
  private static void restoreSetting(
      Snapshot snapshot, Optional<MigrationRecord> recorded, PlanDraft draft) {
    draft.step(
        Action.RESTORE_SETTING,
        "Setting",
        Settings.NAMESPACE,
        SETTING,
        "restore the dtype Setting",
        List.of(
            settingPatch(
                recorded.flatMap(MigrationRecord::settingWas).orElse(settingValue(snapshot)))),
        Optional.empty());
  }

  private static void deleteOldBinding(
      MigrationRequest request, List<Injected> injected, PlanDraft draft) {
    String ns = request.namespace();
    draft.step(
        Action.DELETE_BINDING,
        "KVCachePoolBinding",
        ns,
        request.name(),
        injected.stream().allMatch(Injected::patched)
            ? "delete the old Binding once nothing holds it"
            : "delete the old Binding once nothing holds it (the workloads left to their"
                + " owners hold it until their templates move)",
        List.of("kubectl -n " + ns + " delete kvcachepoolbinding " + request.name() + " --wait"),
        Optional.empty());
  }

  /** The record the run writes: the recorded one (or a new one) with every manifest it moves. */
  private static MigrationRecord record(
      Optional<MigrationRecord> recorded,
      MigrationRequest request,
      Target target,
      Map<String, JsonNode> manifests) {
    MigrationRecord record =
        recorded.orElseGet(
            () ->
                new MigrationRecord(
                    request.dtype(),
                    target.newName(),
                    target.domain(),
                    target.strategy(),
                    request.includeInjected(),
                    Optional.empty(),
                    Map.of(),
                    0));
    return new MigrationRecord(
        record.dtype(),
        record.newBinding(),
        record.domain(),
        record.strategy(),
        record.includeInjected() || request.includeInjected(),
        record.settingWas(),
        manifests,
        record.completed());
  }

  /**
   * The first of {@code <domain>-<suffix>}, {@code <domain>-<suffix>-2}, ... that the webhook would
   * not refuse as claimed on the backend.
   */
  private static String freeDomain(
      Admission admission,
      KVCachePoolBinding old,
      String newName,
      String dtype,
      Snapshot snapshot,
      String suffix) {
    String base = trim(old.getSpec().domain().name() + "-" + suffix, Dns.LABEL_MAX_LENGTH - 3);
    for (int i = 1; i < 100; i++) {
      String candidate = i == 1 ? base : base + "-" + i;
      boolean claimed =
          admit(admission, Route.KV_CACHE_POOL_BINDING, newBinding(old, newName, candidate, dtype))
              .problems()
              .stream()
              .anyMatch(p -> p.field().equals("spec.domain.name"));
      boolean ours =
          snapshot
              .binding(newName)
              .map(b -> b.getSpec().domain().name().equals(candidate))
              .orElse(false);
      if (!claimed || ours) {
        return candidate;
      }
    }
    return base;
  }

  private static Decision admit(Admission admission, Route route, HasMetadata object) {
    return admission.decide(route, request(object));
  }

  static Request request(HasMetadata object) {
    return new Request(
        "kvcache-migrate",
        object.getKind(),
        "CREATE",
        object.getMetadata().getNamespace(),
        object.getMetadata().getName(),
        SERIALIZATION.convertValue(object, JsonNode.class),
        null);
  }

  static KVCachePoolBinding newBinding(
      KVCachePoolBinding old, String name, String domain, String dtype) {
    ObjectNode json = SERIALIZATION.convertValue(old, ObjectNode.class);
    ObjectNode metadata = JSON.createObjectNode();
    metadata.put("name", name).put("namespace", old.getMetadata().getNamespace());
    if (old.getMetadata().getLabels() != null && !old.getMetadata().getLabels().isEmpty()) {
      metadata.set("labels", JSON.valueToTree(old.getMetadata().getLabels()));
    }
    json.set("metadata", metadata);
    json.remove("status");
    ObjectNode domainNode = (ObjectNode) json.path("spec").path("domain");
    domainNode.put("name", domain).put("dtype", dtype);
    return SERIALIZATION.convertValue(json, KVCachePoolBinding.class);
  }

  private static boolean sameDomain(KVCachePoolBinding a, KVCachePoolBinding b) {
    return a.getSpec() != null
        && a.getSpec().poolRef().equals(b.getSpec().poolRef())
        && a.getSpec().domain().equals(b.getSpec().domain());
  }

  /** The new Binding's name when no migration is recorded: asked, or {@code <old>-<dtype>}. */
  public static String newBindingName(MigrationRequest request) {
    return request.newBinding().orElse(trim(request.name() + "-" + suffix(request.dtype()), 253));
  }

  /** {@code dtype} as a DNS label fragment: {@code fp8_e4m3} reads {@code fp8-e4m3}. */
  static String suffix(String dtype) {
    String s = dtype.toLowerCase(java.util.Locale.ROOT).replaceAll("[^a-z0-9]+", "-");
    s = s.replaceAll("^-+|-+$", "");
    return s.isEmpty() ? "migrated" : s;
  }

  static String trim(String name, int max) {
    String s = name.length() <= max ? name : name.substring(0, max);
    return s.replaceAll("-+$", "");
  }

  private static String settingValue(Snapshot snapshot) {
    return Setting.values(snapshot.settings().stream()).getOrDefault(SETTING, "true");
  }

  static String settingPatch(String value) {
    return "kubectl -n "
        + Settings.NAMESPACE
        + " patch setting "
        + SETTING
        + " --type merge -p '{\"spec\":{\"value\":\""
        + value
        + "\"}}'";
  }
}
