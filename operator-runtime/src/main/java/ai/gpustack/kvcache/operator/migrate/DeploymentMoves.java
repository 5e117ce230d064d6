package ai.gpustack.kvcache.operator.migrate;

import ai.gpustack.kvcache.admission.Admission;
import ai.gpustack.kvcache.admission.Decision;
import ai.gpustack.kvcache.admission.Route;
import ai.gpustack.kvcache.cluster.MemoryClusterView;
import ai.gpustack.kvcache.operator.migrate.Plan.Moved;
import ai.gpustack.kvcache.operator.migrate.Planner.Target;
import ai.gpustack.kvcache.operator.migrate.Step.Action;
import ai.gpustack.kvcache.resources.Keys;
import ai.gpustack.kvcache.resources.ModelDeployment;
import ai.gpustack.kvcache.spi.EngineRegistry;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.fabric8.kubernetes.api.model.HasMetadata;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/**
 * The ModelDeployments a migration moves: each one's manifest on the new Binding, run through the
 * webhook's rules against the objects the earlier moves leave, and its delete, create and wait
 * steps in the order the strategy gives.
 */
final class DeploymentMoves {
  private static final ObjectMapper JSON = new ObjectMapper();

  private final EngineRegistry engines;
  private final Snapshot snapshot;
  private final Target target;
  private final String ns;
  private final List<HasMetadata> planned;

  DeploymentMoves(EngineRegistry engines, Snapshot snapshot, Target target, String ns) {
    this.engines = engines;
    this.snapshot = snapshot;
    this.target = target;
    this.ns = ns;
    this.planned = new ArrayList<>(snapshot.objects());
    planned.add(target.fresh());
  }

  /**
   * By old name, the manifest each deployment is created from: the recorded ones (their old
   * deployment may be gone), then those attached through {@code oldBinding} now, by name.
   */
  static Map<String, JsonNode> manifests(
      Snapshot snapshot, String oldBinding, Optional<MigrationRecord> recorded, Target target) {
    Map<String, JsonNode> manifests = new LinkedHashMap<>();
    recorded.ifPresent(r -> manifests.putAll(r.deployments()));
    snapshot.deployments().stream()
        .filter(md -> md.attachesThrough(oldBinding))
        .filter(md -> md.getMetadata().getDeletionTimestamp() == null)
        .sorted(Comparator.comparing(md -> md.getMetadata().getName()))
        .forEach(
            md ->
                manifests.putIfAbsent(
                    md.getMetadata().getName(),
                    manifest(
                        md,
                        replacementName(
                            md.getMetadata().getName(), target.strategy(), target.suffix()),
                        target.newName())));
    return manifests;
  }

  /** Moves each of {@code manifests}, in order, adding its steps and refusals to {@code draft}. */
  List<Moved> move(Map<String, JsonNode> manifests, PlanDraft draft) {
    List<Moved> moved = new ArrayList<>();
    manifests.forEach((name, manifest) -> moved.add(move(name, manifest, draft)));
    return moved;
  }

  /** The cluster's objects as the moves leave them, with the new Binding. */
  List<HasMetadata> planned() {
    return planned;
  }

  private Moved move(String name, JsonNode manifest, PlanDraft draft) {
    String replacement = manifest.path("metadata").path("name").asText();
    ModelDeployment next = Planner.SERIALIZATION.convertValue(manifest, ModelDeployment.class);
    Optional<ModelDeployment> placed =
        snapshot.deployment(replacement).filter(d -> d.attachesThrough(target.newName()));
    if (target.strategy() == Strategy.RECREATE) {
      planned.removeIf(o -> o instanceof ModelDeployment && name.equals(o.getMetadata().getName()));
    } else if (placed.isEmpty() && snapshot.deployment(replacement).isPresent()) {
      draft.refuse(
          "create ModelDeployment "
              + ns
              + "/"
              + replacement
              + ": a ModelDeployment of that name already exists and is not attached through "
              + target.newName());
    }
    if (placed.isEmpty()) {
      admit(next, replacement, draft);
    }
    steps(name, replacement, manifest, draft);
    String engine = next.getSpec() == null ? "?" : next.getSpec().engine().name();
    return new Moved(name, engine, replacement, restarts(name));
  }

  /** Runs the replacement through the webhook's rules; once created it is among the planned. */
  private void admit(ModelDeployment next, String replacement, PlanDraft draft) {
    Decision decision =
        new Admission(engines, MemoryClusterView.of(planned).withSetting(Planner.SETTING, "true"))
            .decide(Route.MODEL_DEPLOYMENT, Planner.request(next));
    if (!decision.allowed()) {
      draft.refuse("create ModelDeployment " + ns + "/" + replacement + ": " + decision.message());
    }
    draft.warn(decision.warnings());
    planned.add(next);
  }

  /** Recreate deletes first; side by side deletes once the replacement is Ready. */
  private void steps(String name, String replacement, JsonNode manifest, PlanDraft draft) {
    boolean recreate = target.strategy() == Strategy.RECREATE;
    String save = saveCommand(name, replacement);
    String deleteCommand = "kubectl -n " + ns + " delete modeldeployment " + name + " --wait";
    Step delete =
        new Step(
            0,
            Action.DELETE_DEPLOYMENT,
            "ModelDeployment",
            ns,
            name,
            recreate
                ? "delete it and wait for its Pods to go (its manifest is kept in the migration"
                    + " record)"
                : "delete the old deployment once " + replacement + " is Ready",
            recreate ? List.of(save, deleteCommand) : List.of(deleteCommand),
            Optional.empty());
    String createCommand = "kubectl create -f " + replacement + ".json";
    Step create =
        new Step(
            0,
            Action.CREATE_DEPLOYMENT,
            "ModelDeployment",
            ns,
            replacement,
            "create it against " + target.newName(),
            recreate ? List.of(createCommand) : List.of(save, createCommand),
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
    (recreate ? List.of(delete, create, ready) : List.of(create, ready, delete))
        .forEach(draft::step);
  }

  /** The hand-run way to keep the manifest: the old deployment renamed, on the new Binding. */
  private String saveCommand(String name, String replacement) {
    return "kubectl -n "
        + ns
        + " get modeldeployment "
        + name
        + " -o json | jq '{apiVersion, kind, metadata: {name: \""
        + replacement
        + "\", namespace: .metadata.namespace, labels: .metadata.labels, annotations: (.metadata.annotations // {} | del(.[\"kubectl.kubernetes.io/last-applied-configuration\"]))},"
        + " spec: (.spec | .kvCache.poolRef.name = \""
        + target.newName()
        + "\")}' > "
        + replacement
        + ".json";
  }

  /** The running replicas of {@code name}, which the move restarts. */
  private List<String> restarts(String name) {
    return snapshot.pods().stream()
        .filter(p -> p.getMetadata().getDeletionTimestamp() == null)
        .filter(p -> p.getMetadata().getLabels() != null)
        .filter(p -> name.equals(p.getMetadata().getLabels().get(Keys.INSTANCE)))
        .filter(p -> p.getMetadata().getLabels().containsKey(Keys.MANAGED_BY))
        .map(p -> p.getMetadata().getName())
        .sorted()
        .toList();
  }

  private static JsonNode manifest(ModelDeployment md, String name, String binding) {
    ObjectNode json = Planner.SERIALIZATION.convertValue(md, ObjectNode.class);
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

  private static String replacementName(String name, Strategy strategy, String suffix) {
    return strategy == Strategy.RECREATE ? name : Planner.trim(name + "-" + suffix, 253);
  }
}
