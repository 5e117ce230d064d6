package ai.gpustack.kvcache.operator.migrate;

import ai.gpustack.kvcache.admission.Admission;
import ai.gpustack.kvcache.admission.Decision;
import ai.gpustack.kvcache.admission.Request;
import ai.gpustack.kvcache.admission.Route;
import ai.gpustack.kvcache.api.Dns;
import ai.gpustack.kvcache.api.Settings;
import ai.gpustack.kvcache.attach.Attachment;
import ai.gpustack.kvcache.attach.AttachmentResolver;
import ai.gpustack.kvcache.attach.BindingRef;
import ai.gpustack.kvcache.attach.Workload;
import ai.gpustack.kvcache.cluster.MemoryClusterView;
import ai.gpustack.kvcache.operator.migrate.Plan.Injected;
import ai.gpustack.kvcache.operator.migrate.Plan.Moved;
import ai.gpustack.kvcache.operator.migrate.Step.Action;
import ai.gpustack.kvcache.resources.KVCachePoolBinding;
import ai.gpustack.kvcache.resources.Keys;
import ai.gpustack.kvcache.resources.KvCacheSerialization;
import ai.gpustack.kvcache.resources.ModelDeployment;
import ai.gpustack.kvcache.resources.Pods;
import ai.gpustack.kvcache.resources.Setting;
import ai.gpustack.kvcache.spi.Engine;
import ai.gpustack.kvcache.spi.EngineRegistry;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.fabric8.kubernetes.api.model.HasMetadata;
import io.fabric8.kubernetes.api.model.OwnerReference;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.client.utils.KubernetesSerialization;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.TreeSet;

/**
 * Turns a {@link Snapshot} into a {@link Plan}, touching nothing. Every object the plan would write
 * is run through the webhook's own rules, in the order the plan writes them and against the state
 * the earlier steps leave, with {@code model-deployment-kv-cache-dtype-owned} on (the state a
 * migration ends in): a refusal found here is the one the API server would answer.
 */
public final class Planner {
  static final String SETTING = Settings.KV_CACHE_DTYPE_OWNED.name();
  private static final Set<String> PATCHABLE =
      Set.of("Deployment", "StatefulSet", "DaemonSet", "ReplicaSet");
  private static final KubernetesSerialization SERIALIZATION = KvCacheSerialization.create();
  private static final ObjectMapper JSON = new ObjectMapper();

  private final EngineRegistry engines;

  public Planner(EngineRegistry engines) {
    this.engines = engines;
  }

  /**
   * The plan for {@code request} on {@code snapshot}, whose Binding {@code request.name()} must
   * exist. A record on it that does not read throws {@link IllegalArgumentException}.
   */
  public Plan plan(Snapshot snapshot, MigrationRequest request) {
    KVCachePoolBinding old =
        snapshot
            .binding(request.name())
            .orElseThrow(() -> new IllegalArgumentException("no Binding " + request.name()));
    String ns = request.namespace();
    List<String> refusals = new ArrayList<>();
    List<String> warnings = new ArrayList<>();
    Optional<MigrationRecord> recorded =
        MigrationRecord.read(
            Optional.ofNullable(old.getMetadata().getAnnotations())
                .map(a -> a.get(MigrationRecord.ANNOTATION)));
    recorded.ifPresent(r -> conflicts(r, request, refusals));
    String suffix = suffix(request.dtype());
    Strategy strategy =
        recorded.map(MigrationRecord::strategy).or(request::strategy).orElse(Strategy.RECREATE);
    String newName = recorded.map(MigrationRecord::newBinding).orElse(newBindingName(request));
    MemoryClusterView view = MemoryClusterView.of(snapshot.objects()).withSetting(SETTING, "true");
    Admission admission = new Admission(engines, view);
    String domain =
        recorded
            .map(MigrationRecord::domain)
            .or(request::domain)
            .orElseGet(
                () -> freeDomain(admission, old, newName, request.dtype(), snapshot, suffix));
    KVCachePoolBinding fresh = newBinding(old, newName, domain, request.dtype());
    boolean ownedNow =
        Settings.effective(Setting.values(snapshot.settings().stream())).kvCacheDtypeOwned();
    if (old.getMetadata().getDeletionTimestamp() != null && recorded.isEmpty()) {
      refusals.add(
          "KVCachePoolBinding "
              + ns
              + "/"
              + request.name()
              + " is being deleted: its workloads are already on their way out; recreate them on"
              + " a new Binding by hand");
    }

    List<Step> steps = new ArrayList<>();
    boolean settingOff =
        request.settingOffWhileMigrating()
            || recorded.flatMap(MigrationRecord::settingWas).isPresent();
    if (settingOff) {
      steps.add(
          step(
              steps,
              Action.SETTING_OFF,
              "Setting",
              Settings.NAMESPACE,
              SETTING,
              "turn the dtype Setting off while the deployments move (restored at the end)",
              List.of(settingPatch("false")),
              Optional.empty()));
    } else if (!ownedNow) {
      warnings.add(
          "Setting "
              + SETTING
              + " is off: the new Binding's dtype is rendered once it is turned back on");
    }

    Optional<KVCachePoolBinding> existing = snapshot.binding(newName);
    if (existing.isPresent()) {
      if (!sameDomain(existing.get(), fresh)) {
        refusals.add(
            "KVCachePoolBinding "
                + ns
                + "/"
                + newName
                + " already exists and declares another domain or dtype; pass --new-binding with"
                + " an unused name");
      }
    } else {
      Decision created = admit(admission, Route.KV_CACHE_POOL_BINDING, fresh);
      if (!created.allowed()) {
        refusals.add("create KVCachePoolBinding " + ns + "/" + newName + ": " + created.message());
      }
      warnings.addAll(created.warnings());
    }
    JsonNode freshJson = SERIALIZATION.convertValue(fresh, JsonNode.class);
    steps.add(
        step(
            steps,
            Action.CREATE_BINDING,
            "KVCachePoolBinding",
            ns,
            newName,
            "create the new Binding: pool "
                + fresh.getSpec().poolRef().name()
                + ", domain "
                + domain
                + ", dtype "
                + request.dtype(),
            List.of("kubectl create -f " + newName + ".yaml   # the manifest above"),
            Optional.of(freshJson)));

    Map<String, JsonNode> manifests = new LinkedHashMap<>();
    recorded.ifPresent(r -> manifests.putAll(r.deployments()));
    snapshot.deployments().stream()
        .filter(md -> md.attachesThrough(request.name()))
        .filter(md -> md.getMetadata().getDeletionTimestamp() == null)
        .sorted(Comparator.comparing(md -> md.getMetadata().getName()))
        .forEach(
            md ->
                manifests.putIfAbsent(
                    md.getMetadata().getName(),
                    manifest(
                        md,
                        replacementName(md.getMetadata().getName(), strategy, suffix),
                        newName)));

    List<HasMetadata> planned = new ArrayList<>(snapshot.objects());
    planned.add(fresh);
    List<Moved> moved = new ArrayList<>();
    for (Map.Entry<String, JsonNode> entry : manifests.entrySet()) {
      String name = entry.getKey();
      JsonNode manifest = entry.getValue();
      String replacement = manifest.path("metadata").path("name").asText();
      ModelDeployment next = SERIALIZATION.convertValue(manifest, ModelDeployment.class);
      Optional<ModelDeployment> placed =
          snapshot.deployment(replacement).filter(d -> d.attachesThrough(newName));
      if (strategy == Strategy.RECREATE) {
        planned.removeIf(
            o -> o instanceof ModelDeployment && name.equals(o.getMetadata().getName()));
      } else if (placed.isEmpty() && snapshot.deployment(replacement).isPresent()) {
        refusals.add(
            "create ModelDeployment "
                + ns
                + "/"
                + replacement
                + ": a ModelDeployment of that name already exists and is not attached through "
                + newName);
      }
      if (placed.isEmpty()) {
        Decision decision =
            new Admission(engines, MemoryClusterView.of(planned).withSetting(SETTING, "true"))
                .decide(Route.MODEL_DEPLOYMENT, request(next));
        if (!decision.allowed()) {
          refusals.add(
              "create ModelDeployment " + ns + "/" + replacement + ": " + decision.message());
        }
        warnings.addAll(decision.warnings());
        planned.add(next);
      }
      String engine = next.getSpec() == null ? "?" : next.getSpec().engine().name();
      moved.add(new Moved(name, engine, replacement, restarts(snapshot, name)));
      steps.addAll(
          deploymentSteps(
              steps.size(), strategy, ns, name, replacement, newName, suffix, manifest));
    }

    List<Injected> injected = injected(snapshot, request, newName, planned, refusals);
    for (Injected workload : injected) {
      if (workload.patched()) {
        steps.add(
            step(
                steps,
                Action.PATCH_TEMPLATE,
                workload.kind(),
                ns,
                workload.name(),
                "point its Pod template at the new Binding (its owner rolls its Pods)",
                List.of(templatePatch(ns, workload.kind(), workload.name(), newName)),
                Optional.empty()));
      }
    }
    if (settingOff) {
      steps.add(
          step(
              steps,
              Action.RESTORE_SETTING,
              "Setting",
              Settings.NAMESPACE,
              SETTING,
              "restore the dtype Setting",
              List.of(
                  settingPatch(
                      recorded
                          .flatMap(MigrationRecord::settingWas)
                          .orElse(settingValue(snapshot)))),
              Optional.empty()));
    }
    steps.add(
        step(
            steps,
            Action.DELETE_BINDING,
            "KVCachePoolBinding",
            ns,
            request.name(),
            injected.stream().allMatch(Injected::patched)
                ? "delete the old Binding once nothing holds it"
                : "delete the old Binding once nothing holds it (the workloads left to their"
                    + " owners hold it until their templates move)",
            List.of(
                "kubectl -n " + ns + " delete kvcachepoolbinding " + request.name() + " --wait"),
            Optional.empty()));

    MigrationRecord record =
        recorded.orElseGet(
            () ->
                new MigrationRecord(
                    request.dtype(),
                    newName,
                    domain,
                    strategy,
                    request.includeInjected(),
                    Optional.empty(),
                    Map.of(),
                    0));
    record =
        new MigrationRecord(
            record.dtype(),
            record.newBinding(),
            record.domain(),
            record.strategy(),
            record.includeInjected() || request.includeInjected(),
            record.settingWas(),
            manifests,
            record.completed());
    return new Plan(
        request,
        old,
        fresh,
        record,
        recorded.isPresent(),
        moved,
        injected,
        steps,
        refusals,
        warnings.stream().distinct().toList());
  }

  private static void conflicts(
      MigrationRecord r, MigrationRequest request, List<String> refusals) {
    String where =
        " is recorded on KVCachePoolBinding "
            + request.namespace()
            + "/"
            + request.name()
            + " (annotation "
            + MigrationRecord.ANNOTATION
            + ")";
    if (!r.dtype().equals(request.dtype())) {
      refusals.add(
          "a migration to dtype \""
              + r.dtype()
              + "\""
              + where
              + "; run with --dtype "
              + r.dtype()
              + " to finish it");
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
                        + "; run with --domain "
                        + r.domain()
                        + " or without it"));
    request
        .newBinding()
        .filter(n -> !n.equals(r.newBinding()))
        .ifPresent(
            n ->
                refusals.add(
                    "a migration to Binding "
                        + r.newBinding()
                        + where
                        + "; run with --new-binding "
                        + r.newBinding()
                        + " or without it"));
    request
        .strategy()
        .filter(s -> s != r.strategy())
        .ifPresent(
            s ->
                refusals.add(
                    "a migration with strategy "
                        + r.strategy().word()
                        + where
                        + "; run with --strategy "
                        + r.strategy().word()
                        + " or without it"));
  }

  private static List<Step> deploymentSteps(
      int before,
      Strategy strategy,
      String ns,
      String name,
      String replacement,
      String newBinding,
      String suffix,
      JsonNode manifest) {
    List<Step> steps = new ArrayList<>();
    String save =
        "kubectl -n "
            + ns
            + " get modeldeployment "
            + name
            + " -o json | jq '{apiVersion, kind, metadata: {name: \""
            + replacement
            + "\", namespace: .metadata.namespace, labels: .metadata.labels, annotations: (.metadata.annotations // {} | del(.[\"kubectl.kubernetes.io/last-applied-configuration\"]))},"
            + " spec: (.spec | .kvCache.poolRef.name = \""
            + newBinding
            + "\")}' > "
            + replacement
            + ".json";
    Step delete =
        new Step(
            0,
            Action.DELETE_DEPLOYMENT,
            "ModelDeployment",
            ns,
            name,
            strategy == Strategy.RECREATE
                ? "delete it and wait for its Pods to go (its manifest is kept in the migration"
                    + " record)"
                : "delete the old deployment once " + replacement + " is Ready",
            strategy == Strategy.RECREATE
                ? List.of(save, "kubectl -n " + ns + " delete modeldeployment " + name + " --wait")
                : List.of("kubectl -n " + ns + " delete modeldeployment " + name + " --wait"),
            Optional.empty());
    Step create =
        new Step(
            0,
            Action.CREATE_DEPLOYMENT,
            "ModelDeployment",
            ns,
            replacement,
            "create it against " + newBinding,
            strategy == Strategy.RECREATE
                ? List.of("kubectl create -f " + replacement + ".json")
                : List.of(save, "kubectl create -f " + replacement + ".json"),
            Optional.of(manifest));
    Step ready =
        new Step(
            0,
            Action.AWAIT_READY,
            "ModelDeployment",
            ns,
            replacement,
            "wait until it is Ready",
            List.of(
                "kubectl -n "
                    + ns
                    + " wait modeldeployment/"
                    + replacement
                    + " --for=jsonpath='{.status.phase}'=Ready --timeout=10m"),
            Optional.empty());
    List<Step> order =
        strategy == Strategy.RECREATE
            ? List.of(delete, create, ready)
            : List.of(create, ready, delete);
    for (Step s : order) {
      steps.add(
          new Step(
              before + steps.size() + 1,
              s.action(),
              s.kind(),
              s.namespace(),
              s.name(),
              s.summary(),
              s.kubectl(),
              s.manifest()));
    }
    return steps;
  }

  private List<Injected> injected(
      Snapshot snapshot,
      MigrationRequest request,
      String newName,
      List<HasMetadata> planned,
      List<String> refusals) {
    String ns = request.namespace();
    MemoryClusterView view = MemoryClusterView.of(planned).withSetting(SETTING, "true");
    AttachmentResolver resolver = new AttachmentResolver(engines);
    List<Injected> found = new ArrayList<>();
    Set<String> covered = new TreeSet<>();
    for (HasMetadata workload : snapshot.workloads()) {
      if (controlled(workload.getMetadata().getOwnerReferences())) {
        continue;
      }
      JsonNode template = templateMetadata(workload);
      if (!"true".equals(template.path("labels").path(Keys.INJECT).asText())
          || !request.name().equals(template.path("annotations").path(Keys.BINDING).asText())) {
        continue;
      }
      String kind = workload.getKind();
      String name = workload.getMetadata().getName();
      List<String> pods =
          snapshot.pods().stream()
              .filter(p -> ownedBy(p, kind, name))
              .map(p -> p.getMetadata().getName())
              .sorted()
              .toList();
      covered.addAll(pods);
      Optional<String> engine =
          Optional.ofNullable(template.path("annotations").path(Keys.ENGINE).asText(null));
      Optional<String> version =
          Optional.ofNullable(template.path("annotations").path(Keys.ENGINE_VERSION).asText(null));
      check(resolver, view, ns, newName, kind + " " + name, engine, version, refusals);
      boolean patched = request.includeInjected() && PATCHABLE.contains(kind);
      found.add(
          new Injected(
              kind,
              name,
              engine.orElse("?"),
              patched,
              pods,
              templatePatch(ns, kind, name, newName)));
    }
    for (Pod pod : snapshot.pods()) {
      if (pod.getMetadata().getDeletionTimestamp() != null
          || covered.contains(pod.getMetadata().getName())
          || !Pods.injectionRequested(pod)
          || !Pods.annotation(pod, Keys.BINDING).map(request.name()::equals).orElse(false)) {
        continue;
      }
      Optional<OwnerReference> owner =
          pod.getMetadata().getOwnerReferences().stream()
              .filter(o -> Boolean.TRUE.equals(o.getController()))
              .findFirst();
      String name = pod.getMetadata().getName();
      check(
          resolver,
          view,
          ns,
          newName,
          "Pod " + name,
          Pods.annotation(pod, Keys.ENGINE),
          Pods.annotation(pod, Keys.ENGINE_VERSION),
          refusals);
      found.add(
          new Injected(
              owner.map(OwnerReference::getKind).orElse("Pod"),
              owner.map(OwnerReference::getName).orElse(name),
              Pods.annotation(pod, Keys.ENGINE).orElse("?"),
              false,
              List.of(name),
              owner.isPresent()
                  ? "point the Pod template of its owner at "
                      + newName
                      + " (annotation "
                      + Keys.BINDING
                      + ")"
                  : "recreate the Pod with annotation " + Keys.BINDING + ": " + newName));
    }
    return found;
  }

  private void check(
      AttachmentResolver resolver,
      MemoryClusterView view,
      String ns,
      String newName,
      String subject,
      Optional<String> engineName,
      Optional<String> version,
      List<String> refusals) {
    Optional<Engine> engine = engineName.flatMap(engines::find);
    if (engine.isEmpty()) {
      refusals.add(
          subject
              + " on "
              + newName
              + ": its engine "
              + engineName
                  .map(e -> "\"" + e + "\" is not registered")
                  .orElse("is not named (annotation " + Keys.ENGINE + ")"));
      return;
    }
    Attachment attachment =
        resolver.resolve(
            new BindingRef(ns, newName, "metadata.annotations[" + Keys.BINDING + "]"),
            Workload.admitted(Workload.POD, subject),
            engine.get(),
            version,
            view.settings(),
            view);
    attachment
        .refusal()
        .ifPresent(r -> refusals.add(subject + " on " + newName + ": " + r.message()));
  }

  private static boolean controlled(List<OwnerReference> owners) {
    return owners != null && owners.stream().anyMatch(o -> Boolean.TRUE.equals(o.getController()));
  }

  /**
   * Whether {@code pod} belongs to workload {@code kind/name}, directly or through its ReplicaSet.
   */
  private static boolean ownedBy(Pod pod, String kind, String name) {
    return pod.getMetadata().getOwnerReferences().stream()
        .anyMatch(
            o ->
                (o.getKind().equals(kind) && o.getName().equals(name))
                    || (kind.equals("Deployment")
                        && o.getKind().equals("ReplicaSet")
                        && o.getName().startsWith(name + "-"))
                    || (kind.equals("CronJob")
                        && o.getKind().equals("Job")
                        && o.getName().startsWith(name + "-")));
  }

  private static JsonNode templateMetadata(HasMetadata workload) {
    JsonNode spec = SERIALIZATION.convertValue(workload, JsonNode.class).path("spec");
    if (workload.getKind().equals("CronJob")) {
      spec = spec.path("jobTemplate").path("spec");
    }
    return spec.path("template").path("metadata");
  }

  private static String templatePatch(String ns, String kind, String name, String binding) {
    ObjectNode annotations = JSON.createObjectNode().put(Keys.BINDING, binding);
    ObjectNode template = JSON.createObjectNode();
    template.putObject("metadata").set("annotations", annotations);
    ObjectNode patch = JSON.createObjectNode();
    if (kind.equals("CronJob")) {
      patch.putObject("spec").putObject("jobTemplate").putObject("spec").set("template", template);
    } else {
      patch.putObject("spec").set("template", template);
    }
    return "kubectl -n "
        + ns
        + " patch "
        + kind.toLowerCase(java.util.Locale.ROOT)
        + " "
        + name
        + " --type merge -p '"
        + patch
        + "'";
  }

  private static List<String> restarts(Snapshot snapshot, String name) {
    return snapshot.pods().stream()
        .filter(p -> p.getMetadata().getDeletionTimestamp() == null)
        .filter(p -> p.getMetadata().getLabels() != null)
        .filter(p -> name.equals(p.getMetadata().getLabels().get(Keys.INSTANCE)))
        .filter(p -> p.getMetadata().getLabels().containsKey(Keys.MANAGED_BY))
        .map(p -> p.getMetadata().getName())
        .sorted()
        .toList();
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

  private static Request request(HasMetadata object) {
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

  private static JsonNode manifest(ModelDeployment md, String name, String binding) {
    ObjectNode json = SERIALIZATION.convertValue(md, ObjectNode.class);
    ObjectNode metadata = JSON.createObjectNode();
    metadata.put("name", name).put("namespace", md.getMetadata().getNamespace());
    if (md.getMetadata().getLabels() != null && !md.getMetadata().getLabels().isEmpty()) {
      metadata.set("labels", JSON.valueToTree(md.getMetadata().getLabels()));
    }
    Map<String, String> annotations = new LinkedHashMap<>();
    if (md.getMetadata().getAnnotations() != null) {
      annotations.putAll(md.getMetadata().getAnnotations());
      annotations.remove("kubectl.kubernetes.io/last-applied-configuration");
    }
    if (!annotations.isEmpty()) {
      metadata.set("annotations", JSON.valueToTree(annotations));
    }
    json.set("metadata", metadata);
    json.remove("status");
    ((ObjectNode) json.path("spec").path("kvCache").path("poolRef")).put("name", binding);
    return json;
  }

  private static boolean sameDomain(KVCachePoolBinding a, KVCachePoolBinding b) {
    return a.getSpec() != null
        && a.getSpec().poolRef().equals(b.getSpec().poolRef())
        && a.getSpec().domain().equals(b.getSpec().domain());
  }

  private static String replacementName(String name, Strategy strategy, String suffix) {
    return strategy == Strategy.RECREATE ? name : trim(name + "-" + suffix, 253);
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

  private static String trim(String name, int max) {
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

  private static Step step(
      List<Step> before,
      Action action,
      String kind,
      String ns,
      String name,
      String summary,
      List<String> kubectl,
      Optional<JsonNode> manifest) {
    return new Step(before.size() + 1, action, kind, ns, name, summary, kubectl, manifest);
  }
}
