package ai.gpustack.kvcache.operator.migrate;

import ai.gpustack.kvcache.attach.AttachmentResolver;
import ai.gpustack.kvcache.attach.BindingRef;
import ai.gpustack.kvcache.attach.Workload;
import ai.gpustack.kvcache.cluster.MemoryClusterView;
import ai.gpustack.kvcache.operator.migrate.Plan.Injected;
import ai.gpustack.kvcache.resources.Keys;
import ai.gpustack.kvcache.resources.Owners;
import ai.gpustack.kvcache.resources.Pods;
import ai.gpustack.kvcache.spi.Engine;
import ai.gpustack.kvcache.spi.EngineRegistry;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.fabric8.kubernetes.api.model.HasMetadata;
import io.fabric8.kubernetes.api.model.OwnerReference;
import io.fabric8.kubernetes.api.model.Pod;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Optional;
import java.util.Set;
import java.util.TreeSet;

/**
 * The workloads the operator does not own that are injected through the old Binding: Pod templates
 * opting in (patched by the plan when asked and their kind allows) and Pods no such template covers
 * (left to their owners). Each is resolved against the new Binding as the webhook would.
 */
final class InjectedWorkloads {
  private static final Set<String> PATCHABLE =
      Set.of("Deployment", "StatefulSet", "DaemonSet", "ReplicaSet");
  private static final ObjectMapper JSON = new ObjectMapper();

  private final EngineRegistry engines;
  private final MigrationRequest request;
  private final String newName;
  private final MemoryClusterView view;
  private final AttachmentResolver resolver;

  /** {@code planned}: the cluster's objects as the earlier steps leave them. */
  InjectedWorkloads(
      EngineRegistry engines, MigrationRequest request, String newName, List<HasMetadata> planned) {
    this.engines = engines;
    this.request = request;
    this.newName = newName;
    this.view = MemoryClusterView.of(planned).withSetting(Planner.SETTING, "true");
    this.resolver = new AttachmentResolver(engines);
  }

  /** Every such workload in {@code snapshot}; what the new Binding would refuse goes to draft. */
  List<Injected> find(Snapshot snapshot, PlanDraft draft) {
    List<Injected> found = new ArrayList<>();
    Set<String> covered = new TreeSet<>();
    for (HasMetadata workload : snapshot.workloads()) {
      template(workload, snapshot, draft)
          .ifPresent(
              injected -> {
                found.add(injected);
                covered.addAll(injected.pods());
              });
    }
    for (Pod pod : snapshot.pods()) {
      if (pod.getMetadata().getDeletionTimestamp() != null
          || covered.contains(pod.getMetadata().getName())
          || !Pods.injectionRequested(pod)
          || !Pods.annotation(pod, Keys.BINDING).map(request.name()::equals).orElse(false)) {
        continue;
      }
      found.add(pod(pod, draft));
    }
    return found;
  }

  /** A workload whose own Pod template opts into injection through the old Binding. */
  private Optional<Injected> template(HasMetadata workload, Snapshot snapshot, PlanDraft draft) {
    if (Owners.controller(workload).isPresent()) {
      return Optional.empty();
    }
    JsonNode template = templateMetadata(workload);
    if (!"true".equals(template.path("labels").path(Keys.INJECT).asText())
        || !request.name().equals(template.path("annotations").path(Keys.BINDING).asText())) {
      return Optional.empty();
    }
    String kind = workload.getKind();
    String name = workload.getMetadata().getName();
    List<String> pods =
        snapshot.pods().stream()
            .filter(p -> ownedBy(p, kind, name))
            .map(p -> p.getMetadata().getName())
            .sorted()
            .toList();
    Optional<String> engine =
        Optional.ofNullable(template.path("annotations").path(Keys.ENGINE).asText(null));
    Optional<String> version =
        Optional.ofNullable(template.path("annotations").path(Keys.ENGINE_VERSION).asText(null));
    check(kind + " " + name, engine, version, draft);
    String ns = request.namespace();
    return Optional.of(
        new Injected(
            kind,
            name,
            engine.orElse("?"),
            request.includeInjected() && PATCHABLE.contains(kind),
            pods,
            templatePatch(ns, kind, name, newName)));
  }

  /** An injected Pod no template found covers: its owner's template, or the Pod, must change. */
  private Injected pod(Pod pod, PlanDraft draft) {
    Optional<OwnerReference> owner = Owners.controller(pod);
    String name = pod.getMetadata().getName();
    check(
        "Pod " + name,
        Pods.annotation(pod, Keys.ENGINE),
        Pods.annotation(pod, Keys.ENGINE_VERSION),
        draft);
    return new Injected(
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
            : "recreate the Pod with annotation " + Keys.BINDING + ": " + newName);
  }

  /**
   * Refuses {@code subject} on the new Binding as the webhook would, or when its engine is unknown.
   */
  private void check(
      String subject, Optional<String> engineName, Optional<String> version, PlanDraft draft) {
    Optional<Engine> engine = engineName.flatMap(engines::find);
    if (engine.isEmpty()) {
      draft.refuse(
          subject
              + " on "
              + newName
              + ": its engine "
              + engineName
                  .map(e -> "\"" + e + "\" is not registered")
                  .orElse("is not named (annotation " + Keys.ENGINE + ")"));
      return;
    }
    resolver
        .resolve(
            BindingRef.pod(request.namespace(), newName),
            Workload.admitted(Workload.POD, subject),
            engine.get(),
            version,
            view.settings(),
            view)
        .refusal()
        .ifPresent(r -> draft.refuse(subject + " on " + newName + ": " + r.message()));
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
    JsonNode spec = Planner.SERIALIZATION.convertValue(workload, JsonNode.class).path("spec");
    if (workload.getKind().equals("CronJob")) {
      spec = spec.path("jobTemplate").path("spec");
    }
    return spec.path("template").path("metadata");
  }

  /** The {@code kubectl patch} pointing a workload's Pod template at {@code binding}. */
  static String templatePatch(String ns, String kind, String name, String binding) {
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
        + kind.toLowerCase(Locale.ROOT)
        + " "
        + name
        + " --type merge -p '"
        + patch
        + "'";
  }
}
