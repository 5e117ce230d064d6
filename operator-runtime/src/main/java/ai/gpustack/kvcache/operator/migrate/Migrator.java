package ai.gpustack.kvcache.operator.migrate;

import ai.gpustack.kvcache.api.Settings;
import ai.gpustack.kvcache.resources.KVCachePoolBinding;
import ai.gpustack.kvcache.resources.Keys;
import ai.gpustack.kvcache.resources.ModelDeployment;
import ai.gpustack.kvcache.resources.Pods;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.fabric8.kubernetes.api.model.GenericKubernetesResource;
import io.fabric8.kubernetes.api.model.HasMetadata;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.KubernetesClientException;
import io.fabric8.kubernetes.client.dsl.base.PatchContext;
import io.fabric8.kubernetes.client.dsl.base.PatchType;
import java.io.PrintWriter;
import java.net.HttpURLConnection;
import java.time.Duration;
import java.util.List;
import java.util.Optional;
import java.util.function.Supplier;

/**
 * Carries out a {@link Plan} step by step. Each step first reads whether its effect is already in
 * the cluster and skips it if so, and every completed step is recorded on the old Binding, so a run
 * killed at any point and run again resumes where it stopped: it never creates a second deployment,
 * and (side by side) never deletes one whose replacement is not Ready.
 */
public final class Migrator {
  /**
   * A fault-injection point for the resume tests: {@code -D}{@value}{@code =N} halts the JVM, as
   * {@code kill -9} would (no cleanup runs), right after step N is recorded.
   */
  public static final String HALT_AFTER_STEP = "kvcache.migrate.halt-after-step";

  private static final ObjectMapper JSON = new ObjectMapper();
  private static final Duration POLL = Duration.ofMillis(250);

  private final KubernetesClient client;
  private final PrintWriter out;
  private final Duration timeout;
  private Plan plan;
  private MigrationRecord record;
  private final DtypeSetting setting;

  /** {@code timeout} bounds each wait (for Pods to go, a deployment to be Ready, a release). */
  public Migrator(KubernetesClient client, PrintWriter out, Duration timeout) {
    this.client = client;
    this.out = out;
    this.timeout = timeout;
    this.setting = new DtypeSetting(client);
  }

  /** Why a step could not complete; the migration stops there, resumable. */
  static final class StepFailed extends RuntimeException {
    private static final long serialVersionUID = 1L;

    StepFailed(String message) {
      super(message);
    }
  }

  /**
   * Runs {@code plan}, which must be clean. Returns 0 when every step is done and 1 when a step
   * failed, which is named; the Setting, if this run turned it off, is restored either way.
   */
  public int apply(Plan plan) {
    this.plan = plan;
    record = plan.record();
    writeRecord();
    out.println();
    out.println(
        (plan.resumed() ? "Resuming after step " + record.completed() : "Applying")
            + " (progress recorded on KVCachePoolBinding "
            + plan.oldName()
            + ", annotation "
            + MigrationRecord.ANNOTATION
            + "):");
    out.flush();
    Optional<String> kept = Optional.empty();
    try {
      for (Step step : plan.steps()) {
        Optional<Result> result = carryOut(step);
        if (result.isEmpty()) {
          return 1;
        }
        if (result.get() == Result.KEPT) {
          kept = Optional.of(step.name());
        }
      }
    } finally {
      restoreSetting();
    }
    out.println();
    out.println(kept.map(this::keptMessage).orElseGet(this::migratedMessage));
    out.flush();
    return 0;
  }

  /**
   * Runs one step, prints how it went and records it done; empty when it failed, which is printed
   * with how to resume.
   */
  private Optional<Result> carryOut(Step step) {
    int total = plan.steps().size();
    out.print("  [" + step.number() + "/" + total + "] " + step.describe() + " ... ");
    out.flush();
    long start = System.nanoTime();
    Result result;
    try {
      result = run(step);
    } catch (StepFailed | KubernetesClientException e) {
      out.println("failed");
      out.println();
      out.println(
          "kvcache migrate: step "
              + step.number()
              + "/"
              + total
              + " ("
              + step.describe()
              + ") failed: "
              + String.valueOf(e.getMessage()).lines().findFirst().orElse(""));
      out.println(
          "Nothing after it ran, and the progress is recorded on "
              + plan.oldName()
              + ": run the same command again to resume.");
      out.flush();
      return Optional.empty();
    }
    out.println(
        switch (result) {
          case KEPT -> "kept";
          case RAN -> String.format("done (%.1f s)", (System.nanoTime() - start) / 1e9);
          case ALREADY -> "already done";
        });
    out.flush();
    // The old Binding's deletion is not recorded: the record goes with it.
    if (step.action() != Step.Action.DELETE_BINDING) {
      record = record.withCompleted(step.number());
      writeRecord();
    }
    if (Integer.getInteger(HALT_AFTER_STEP, 0) == step.number()) {
      Runtime.getRuntime().halt(137);
    }
    return Optional.of(result);
  }

  private String keptMessage(String oldBinding) {
    return "Moved every ModelDeployment to "
        + plan.newName()
        + "; the old Binding is kept while the workloads left to their owners hold it."
        + " Point their Pod templates at "
        + plan.newBinding().getMetadata().getName()
        + ", then: kubectl -n "
        + plan.oldBinding().getMetadata().getNamespace()
        + " delete kvcachepoolbinding "
        + oldBinding;
  }

  private String migratedMessage() {
    return "migrated: "
        + plan.oldName()
        + " -> "
        + plan.newName()
        + " (dtype "
        + plan.record().dtype()
        + ", domain "
        + plan.record().domain()
        + ")";
  }

  enum Result {
    RAN,
    ALREADY,
    KEPT
  }

  private Result run(Step step) {
    String ns = step.namespace();
    String newBinding = plan.newBinding().getMetadata().getName();
    return switch (step.action()) {
      case SETTING_OFF -> settingOff();
      case RESTORE_SETTING -> {
        boolean changed = restoreSetting();
        yield changed ? Result.RAN : Result.ALREADY;
      }
      case CREATE_BINDING -> {
        if (binding(ns, step.name()).isPresent()) {
          yield Result.ALREADY;
        }
        create(client, plan.newBinding());
        yield Result.RAN;
      }
      case CREATE_DEPLOYMENT -> {
        Optional<ModelDeployment> md = deployment(ns, step.name());
        if (md.isPresent()) {
          if (md.get().attachesThrough(newBinding)) {
            yield Result.ALREADY;
          }
          throw new StepFailed(
              "ModelDeployment "
                  + ns
                  + "/"
                  + step.name()
                  + " exists and is not attached through "
                  + newBinding);
        }
        create(
            client,
            client
                .getKubernetesSerialization()
                .convertValue(step.manifest().orElseThrow(), ModelDeployment.class));
        yield Result.RAN;
      }
      case AWAIT_READY -> {
        if (Readiness.ready(deployment(ns, step.name()))) {
          yield Result.ALREADY;
        }
        await(
            "ModelDeployment " + ns + "/" + step.name() + " to be Ready",
            () -> Readiness.ready(deployment(ns, step.name())),
            () -> Readiness.why(deployment(ns, step.name())));
        yield Result.RAN;
      }
      case DELETE_DEPLOYMENT -> deleteDeployment(step);
      case PATCH_TEMPLATE -> patchTemplate(ns, step.kind(), step.name(), newBinding);
      case DELETE_BINDING -> deleteBinding(step);
    };
  }

  private Result deleteDeployment(Step step) {
    String ns = step.namespace();
    String name = step.name();
    String newBinding = plan.newBinding().getMetadata().getName();
    Optional<ModelDeployment> md = deployment(ns, name);
    if (md.isPresent() && md.get().attachesThrough(newBinding)) {
      // Recreated already: the Pods of that name are the new deployment's.
      return Result.ALREADY;
    }
    if (md.isEmpty()) {
      return pods(ns, name).isEmpty() ? Result.ALREADY : awaitPodsGone(ns, name);
    }
    String replacement =
        plan.deployments().stream()
            .filter(m -> m.name().equals(name))
            .map(Plan.Moved::replacement)
            .findFirst()
            .orElse(name);
    if (!replacement.equals(name) && !Readiness.ready(deployment(ns, replacement))) {
      throw new StepFailed(
          "not deleting ModelDeployment "
              + ns
              + "/"
              + name
              + ": its replacement "
              + replacement
              + " is not Ready");
    }
    if (md.get().getMetadata().getDeletionTimestamp() == null) {
      client.resources(ModelDeployment.class).inNamespace(ns).withName(name).delete();
    }
    await(
        "ModelDeployment " + ns + "/" + name + " to be gone",
        () -> deployment(ns, name).isEmpty(),
        () -> "it is still there");
    return awaitPodsGone(ns, name);
  }

  private Result awaitPodsGone(String ns, String name) {
    await(
        "the Pods of ModelDeployment " + ns + "/" + name + " to go",
        () -> pods(ns, name).isEmpty(),
        () -> "left: " + pods(ns, name).stream().map(p -> p.getMetadata().getName()).toList());
    return Result.RAN;
  }

  private Result patchTemplate(String ns, String kind, String name, String newBinding) {
    var resource =
        client.genericKubernetesResources("apps/v1", kind).inNamespace(ns).withName(name);
    GenericKubernetesResource workload = resource.get();
    if (workload == null) {
      throw new StepFailed(kind + " " + ns + "/" + name + " is gone");
    }
    Object current =
        JSON.valueToTree(workload.getAdditionalProperties())
            .path("spec")
            .path("template")
            .path("metadata")
            .path("annotations")
            .path(Keys.BINDING)
            .asText("");
    if (newBinding.equals(current)) {
      return Result.ALREADY;
    }
    ObjectNode patch = JSON.createObjectNode();
    patch
        .putObject("spec")
        .putObject("template")
        .putObject("metadata")
        .putObject("annotations")
        .put(Keys.BINDING, newBinding);
    resource.patch(PatchContext.of(PatchType.JSON_MERGE), patch.toString());
    return Result.RAN;
  }

  private Result deleteBinding(Step step) {
    String ns = step.namespace();
    String name = step.name();
    Optional<KVCachePoolBinding> old = binding(ns, name);
    if (old.isEmpty()) {
      return Result.ALREADY;
    }
    List<String> deployments = holdingDeployments(ns, name);
    if (!deployments.isEmpty()) {
      throw new StepFailed(
          "ModelDeployments "
              + deployments
              + " attach through "
              + name
              + " but are not in the plan (created after it?): run the same command again to"
              + " move them too");
    }
    List<String> left =
        plan.injected().stream()
            .filter(i -> !i.patched())
            .map(i -> i.kind() + " " + i.name())
            .toList();
    if (!left.isEmpty() && !holdingPods(ns, name).isEmpty()) {
      return Result.KEPT;
    }
    await(
        "the injected Pods of the patched workloads to leave " + name,
        () -> holdingPods(ns, name).isEmpty(),
        () -> "held by Pods " + holdingPods(ns, name));
    if (old.get().getMetadata().getDeletionTimestamp() == null) {
      client.resources(KVCachePoolBinding.class).inNamespace(ns).withName(name).delete();
    }
    await(
        "KVCachePoolBinding " + ns + "/" + name + " to be gone",
        () -> binding(ns, name).isEmpty(),
        () ->
            binding(ns, name)
                .flatMap(b -> Optional.ofNullable(b.getStatus()))
                .flatMap(s -> s.phaseMessage())
                .orElse("it is still there"));
    return Result.RAN;
  }

  private Result settingOff() {
    String now = setting.value().orElse("true");
    if (record.settingWas().isEmpty()) {
      record = record.withSettingWas(now);
      writeRecord();
    }
    setting.restoreOnShutdown(this::restoreSetting);
    if (Settings.parseBool(now).orElse(true)) {
      setting.write("false");
      return Result.RAN;
    }
    return Result.ALREADY;
  }

  /** Restores the Setting this migration turned off; whether it had to change. */
  private synchronized boolean restoreSetting() {
    if (record.settingWas().isEmpty()) {
      return false;
    }
    String was = record.settingWas().get();
    setting.cancelRestoreOnShutdown();
    if (setting.value().orElse("true").equals(was)) {
      return false;
    }
    setting.write(was);
    return true;
  }

  private void writeRecord() {
    ObjectNode patch = JSON.createObjectNode();
    patch
        .putObject("metadata")
        .putObject("annotations")
        .put(MigrationRecord.ANNOTATION, record.json());
    client
        .resources(KVCachePoolBinding.class)
        .inNamespace(plan.oldBinding().getMetadata().getNamespace())
        .withName(plan.oldBinding().getMetadata().getName())
        .patch(PatchContext.of(PatchType.JSON_MERGE), patch.toString());
  }

  /** Creates {@code object}; one that exists already is left as it is. */
  static <T extends HasMetadata> void create(KubernetesClient client, T object) {
    try {
      client.resource(object).create();
    } catch (KubernetesClientException e) {
      if (e.getCode() != HttpURLConnection.HTTP_CONFLICT) {
        throw new StepFailed(
            object.getKind()
                + " "
                + object.getMetadata().getName()
                + " was refused: "
                + (e.getStatus() == null ? e.getMessage() : e.getStatus().getMessage()));
      }
    }
  }

  private Optional<KVCachePoolBinding> binding(String ns, String name) {
    return Optional.ofNullable(
        client.resources(KVCachePoolBinding.class).inNamespace(ns).withName(name).get());
  }

  private Optional<ModelDeployment> deployment(String ns, String name) {
    return Optional.ofNullable(
        client.resources(ModelDeployment.class).inNamespace(ns).withName(name).get());
  }

  private List<Pod> pods(String ns, String deployment) {
    return client
        .pods()
        .inNamespace(ns)
        .withLabel(Keys.INSTANCE, deployment)
        .list()
        .getItems()
        .stream()
        .filter(p -> p.getMetadata().getLabels().containsKey(Keys.MANAGED_BY))
        .toList();
  }

  private List<String> holdingDeployments(String ns, String binding) {
    return client.resources(ModelDeployment.class).inNamespace(ns).list().getItems().stream()
        .filter(md -> md.attachesThrough(binding))
        .map(md -> md.getMetadata().getName())
        .toList();
  }

  private List<String> holdingPods(String ns, String binding) {
    return client.pods().inNamespace(ns).withLabel(Keys.INJECT, "true").list().getItems().stream()
        .filter(p -> p.getMetadata().getDeletionTimestamp() == null)
        .filter(p -> Pods.annotation(p, Keys.BINDING).map(binding::equals).orElse(false))
        .map(p -> p.getMetadata().getName())
        .toList();
  }

  private void await(String what, Supplier<Boolean> done, Supplier<String> why) {
    long deadline = System.nanoTime() + timeout.toNanos();
    while (!done.get()) {
      if (System.nanoTime() > deadline) {
        throw new StepFailed(
            "gave up waiting for " + what + " after " + timeout.toSeconds() + " s: " + why.get());
      }
      try {
        Thread.sleep(POLL.toMillis());
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
        throw new StepFailed("interrupted while waiting for " + what);
      }
    }
  }
}
