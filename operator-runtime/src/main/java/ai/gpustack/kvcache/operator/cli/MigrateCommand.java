package ai.gpustack.kvcache.operator.cli;

import ai.gpustack.kvcache.operator.migrate.MigrationRequest;
import ai.gpustack.kvcache.operator.migrate.Migrator;
import ai.gpustack.kvcache.operator.migrate.Plan;
import ai.gpustack.kvcache.operator.migrate.Planner;
import ai.gpustack.kvcache.operator.migrate.Snapshot;
import ai.gpustack.kvcache.operator.migrate.Step;
import ai.gpustack.kvcache.operator.migrate.Strategy;
import ai.gpustack.kvcache.operator.preflight.ReportTable;
import ai.gpustack.kvcache.resources.KVCachePoolBinding;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.SerializationFeature;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.KubernetesClientException;
import io.fabric8.kubernetes.client.utils.KubernetesSerialization;
import java.io.PrintWriter;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.Callable;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

/** {@code kvcache migrate}: the recovery from a wrong Binding dtype, as a reviewed plan. */
@Command(
    name = "migrate",
    mixinStandardHelpOptions = true,
    description = {
      "Moves every workload of a Binding to a new Binding declaring another dtype, on the same"
          + " pool, with the same quota and block size and a new domain name: the upgrade guide's"
          + " recovery as one command.",
      "Without --apply it prints the plan and changes nothing: the new Binding, each deployment's"
          + " steps with their kubectl equivalents and the replicas that restart, the injected"
          + " workloads and the edit their templates need, and every refusal the plan would meet"
          + " (each object it would write is run through the webhook's rules first).",
      "With --apply it runs the plan step by step, recording its progress on the old Binding"
          + " (annotation kvcache.gpustack.ai/migration): run again after an interruption, it"
          + " resumes where it stopped. The old Binding is deleted last, once nothing holds it.",
      "Exit codes: 0 the plan is clean (or was applied); 1 the plan meets a refusal, or a step"
          + " failed (named; run again to resume); 2 unreadable input or cluster."
    })
final class MigrateCommand implements Callable<Integer> {
  @Option(
      names = "--binding",
      required = true,
      paramLabel = "NS/NAME",
      description = "The Binding whose workloads move.")
  String binding;

  @Option(
      names = "--dtype",
      required = true,
      description = "The dtype the new Binding declares, spelled as the engines accept it.")
  String dtype;

  @Option(
      names = "--domain",
      description = "The new reuse domain's name; default <old domain>-<dtype>, made unique.")
  String domain;

  @Option(
      names = "--new-binding",
      paramLabel = "NAME",
      description = "The new Binding's name; default <old name>-<dtype>.")
  String newBinding;

  @Option(
      names = "--strategy",
      description =
          "recreate (keep each name: delete, wait for its Pods to go, create, wait Ready; the"
              + " default) or side-by-side (create NAME-<dtype>, wait Ready, then delete the old).")
  String strategy;

  @Option(
      names = "--include-injected",
      description =
          "Also point the Pod templates of injected Deployments, StatefulSets, DaemonSets and"
              + " ReplicaSets at the new Binding (their owners roll them).")
  boolean includeInjected;

  @Option(
      names = "--setting-off-while-migrating",
      description =
          "Turn model-deployment-kv-cache-dtype-owned off while the deployments move, restored at"
              + " the end and on every exit path (rarely needed).")
  boolean settingOff;

  @Option(names = "--apply", description = "Carry the plan out.")
  boolean apply;

  @Option(
      names = "--timeout",
      defaultValue = "10m",
      description =
          "How long each wait may take (Pods to go, a deployment to be Ready); default ${DEFAULT-VALUE}.")
  String timeout;

  @Option(
      names = "--kubeconfig",
      description = "Kubeconfig file; $KUBECONFIG, ~/.kube/config or in-cluster when absent.")
  Path kubeconfig;

  @Option(
      names = {"-o", "--output"},
      defaultValue = "table",
      description = "table (for people) or json (for scripts); default ${DEFAULT-VALUE}.")
  String output;

  @CommandLine.Spec CommandLine.Model.CommandSpec spec;

  @Override
  public Integer call() {
    PrintWriter out = spec.commandLine().getOut();
    PrintWriter err = spec.commandLine().getErr();
    requireKnownOutput();
    String[] parts = namespaceAndName();
    Optional<Strategy> chosen = chosenStrategy();
    Duration wait = duration(timeout);
    MigrationRequest request =
        new MigrationRequest(
            parts[0],
            parts[1],
            dtype,
            Optional.ofNullable(domain),
            Optional.ofNullable(newBinding),
            chosen,
            includeInjected,
            settingOff);
    try (KubernetesClient client = Clients.oneShot(kubeconfig)) {
      Snapshot snapshot;
      try {
        snapshot = Snapshot.read(client, request.namespace());
      } catch (KubernetesClientException e) {
        err.println("kvcache migrate: " + Clients.unreachable(client, e));
        return 2;
      }
      if (snapshot.binding(request.name()).isEmpty()) {
        return missing(snapshot, request, out, err);
      }
      Plan plan;
      try {
        plan = new Planner(Engines.load(spec.commandLine())).plan(snapshot, request);
      } catch (IllegalArgumentException e) {
        err.println("kvcache migrate: KVCachePoolBinding " + binding + ": " + e.getMessage());
        return 2;
      }
      printPlan(plan, client.getKubernetesSerialization(), out);
      if (!plan.clean()) {
        return 1;
      }
      if (!apply) {
        printPlanOnly(out);
        return 0;
      }
      return applyPlan(client, plan, wait, out, err);
    }
  }

  private void requireKnownOutput() {
    if (!output.equals("table") && !output.equals("json")) {
      throw new CommandLine.ParameterException(
          spec.commandLine(), "-o " + output + ": use table or json");
    }
  }

  /** {@code --binding} split at its slash; both halves present. */
  private String[] namespaceAndName() {
    String[] parts = binding.split("/", -1);
    if (parts.length != 2 || parts[0].isEmpty() || parts[1].isEmpty()) {
      throw new CommandLine.ParameterException(
          spec.commandLine(),
          "--binding " + binding + ": name the Binding as NAMESPACE/NAME (team-a/legacy)");
    }
    return parts;
  }

  /** {@code --strategy}, or empty for the planner's default. */
  private Optional<Strategy> chosenStrategy() {
    Optional<Strategy> chosen = Optional.empty();
    if (strategy != null) {
      chosen = Strategy.of(strategy);
      if (chosen.isEmpty()) {
        throw new CommandLine.ParameterException(
            spec.commandLine(), "--strategy " + strategy + ": use recreate or side-by-side");
      }
    }
    return chosen;
  }

  private void printPlan(Plan plan, KubernetesSerialization serialization, PrintWriter out) {
    if (output.equals("json")) {
      out.println(json(plan, serialization));
    } else {
      table(plan, serialization, out);
    }
    out.flush();
  }

  private void printPlanOnly(PrintWriter out) {
    if (output.equals("table")) {
      out.println();
      out.println(
          "Plan only: nothing was changed. Run the same command with --apply to carry it out.");
    }
  }

  /** Progress goes to stderr under {@code -o json}, so stdout stays one JSON document. */
  private int applyPlan(
      KubernetesClient client, Plan plan, Duration wait, PrintWriter out, PrintWriter err) {
    PrintWriter progress = output.equals("json") ? err : out;
    try {
      return new Migrator(client, progress, wait).apply(plan);
    } catch (KubernetesClientException e) {
      progress.flush();
      err.println("kvcache migrate: " + Clients.unreachable(client, e));
      return 2;
    }
  }

  /**
   * The old Binding is gone: either a finished migration run again (its new Binding declares the
   * dtype) or a name that does not exist.
   */
  private int missing(
      Snapshot snapshot, MigrationRequest request, PrintWriter out, PrintWriter err) {
    String derived = Planner.newBindingName(request);
    Optional<KVCachePoolBinding> moved =
        snapshot
            .binding(derived)
            .filter(b -> b.getSpec() != null && b.getSpec().domain().dtype().equals(dtype));
    if (moved.isPresent()) {
      out.println(
          "Nothing to migrate: KVCachePoolBinding "
              + binding
              + " is gone and "
              + request.namespace()
              + "/"
              + derived
              + " declares dtype "
              + dtype
              + " (a migration that finished).");
      return 0;
    }
    err.println(
        "kvcache migrate: KVCachePoolBinding "
            + binding
            + " not found; list them with: kubectl get kvcachepoolbindings -A");
    return 2;
  }

  /** A kubectl-style duration: {@code 90s}, {@code 10m}, {@code 1h}. */
  private Duration duration(String value) {
    java.util.regex.Matcher m = java.util.regex.Pattern.compile("(\\d{1,6})([smh])").matcher(value);
    if (!m.matches()) {
      throw new CommandLine.ParameterException(
          spec.commandLine(), "--timeout " + value + ": use a duration such as 90s, 10m or 1h");
    }
    long n = Long.parseLong(m.group(1));
    return switch (m.group(2)) {
      case "s" -> Duration.ofSeconds(n);
      case "m" -> Duration.ofMinutes(n);
      default -> Duration.ofHours(n);
    };
  }

  private static void table(Plan plan, KubernetesSerialization yaml, PrintWriter out) {
    printMigrationHeader(plan, out);
    printNewBinding(plan, yaml, out);
    printDeployments(plan, out);
    printInjected(plan, out);
    printSteps(plan, out);
    printNotes(plan, out);
  }

  private static void printMigrationHeader(Plan plan, PrintWriter out) {
    KVCachePoolBinding old = plan.oldBinding();
    out.println(
        "Migration of KVCachePoolBinding "
            + plan.oldName()
            + " (dtype \""
            + old.getSpec().domain().dtype()
            + "\", domain "
            + old.getSpec().domain().name()
            + ") to "
            + plan.newName()
            + " (dtype \""
            + plan.record().dtype()
            + "\", domain "
            + plan.record().domain()
            + ")"
            + (plan.resumed()
                ? ", recorded on the old Binding: resuming after step " + plan.record().completed()
                : ""));
    out.println(
        "Strategy "
            + plan.record().strategy().word()
            + (plan.record().strategy() == Strategy.RECREATE
                ? ": one deployment at a time, deleted, then created with the same name on the new"
                    + " Binding"
                : ": each deployment's replacement created and Ready before the old one is"
                    + " deleted"));
    out.println(
        "Each object the plan writes was checked with the webhook's rules, with"
            + " model-deployment-kv-cache-dtype-owned on (as the migration ends).");
    out.println();
  }

  /** The new Binding's manifest, indented under its heading. */
  private static void printNewBinding(Plan plan, KubernetesSerialization yaml, PrintWriter out) {
    out.println(
        "New Binding (saved as "
            + plan.newBinding().getMetadata().getName()
            + ".yaml for step 1 by hand):");
    yaml.asYaml(plan.newBinding())
        .lines()
        .filter(l -> !l.equals("---"))
        .forEach(l -> out.println("  " + l));
    out.println();
  }

  private static void printDeployments(Plan plan, PrintWriter out) {
    if (plan.deployments().isEmpty()) {
      out.println("No ModelDeployment attaches through " + plan.oldName() + ".");
    } else {
      List<List<String>> rows = new ArrayList<>();
      rows.add(List.of("DEPLOYMENT", "ENGINE", "BECOMES", "RESTARTS"));
      for (Plan.Moved m : plan.deployments()) {
        rows.add(
            List.of(
                m.name(),
                m.engine(),
                m.replacement(),
                m.restarts().isEmpty() ? "-" : String.join(",", m.restarts())));
      }
      new ReportTable(false).table(rows, out, cell -> "");
    }
  }

  private static void printInjected(Plan plan, PrintWriter out) {
    if (!plan.injected().isEmpty()) {
      out.println();
      out.println(
          "Injected workloads (their owners are not ours to rewrite; --include-injected patches the"
              + " templates of Deployments, StatefulSets, DaemonSets and ReplicaSets):");
      for (Plan.Injected i : plan.injected()) {
        out.println(
            "  "
                + i.kind()
                + " "
                + i.name()
                + " ("
                + i.engine()
                + ", Pods "
                + String.join(",", i.pods())
                + "): "
                + (i.patched()
                    ? "patched by the plan"
                    : "left to its owner; the edit: " + i.edit()));
      }
    }
  }

  private static void printSteps(Plan plan, PrintWriter out) {
    out.println();
    out.println("Steps:");
    for (Step step : plan.steps()) {
      out.println("  " + step.number() + ". " + step.object() + ": " + step.summary());
      step.kubectl().forEach(k -> out.println("       $ " + k));
    }
  }

  private static void printNotes(Plan plan, PrintWriter out) {
    if (!plan.warnings().isEmpty()) {
      out.println();
      out.println("Warnings:");
      plan.warnings().forEach(w -> out.println("  - " + w));
    }
    if (!plan.refusals().isEmpty()) {
      out.println();
      out.println("Refusals (the plan stops here; nothing was changed):");
      plan.refusals().forEach(r -> out.println("  - " + r));
    }
  }

  private static String json(Plan plan, KubernetesSerialization serialization) {
    ObjectMapper mapper = new ObjectMapper().enable(SerializationFeature.INDENT_OUTPUT);
    ObjectNode root = mapper.createObjectNode();
    root.put("binding", plan.oldName())
        .put("dtype", plan.record().dtype())
        .put("domain", plan.record().domain())
        .put("strategy", plan.record().strategy().word())
        .put("resumed", plan.resumed())
        .put("completedSteps", plan.record().completed())
        .put("clean", plan.clean());
    root.set("newBinding", serialization.convertValue(plan.newBinding(), ObjectNode.class));
    ArrayNode deployments = root.putArray("deployments");
    for (Plan.Moved m : plan.deployments()) {
      ObjectNode d = deployments.addObject();
      d.put("name", m.name()).put("engine", m.engine()).put("replacement", m.replacement());
      m.restarts().forEach(d.putArray("restarts")::add);
    }
    ArrayNode injected = root.putArray("injected");
    for (Plan.Injected i : plan.injected()) {
      ObjectNode w = injected.addObject();
      w.put("kind", i.kind()).put("name", i.name()).put("engine", i.engine());
      w.put("patched", i.patched()).put("edit", i.edit());
      i.pods().forEach(w.putArray("pods")::add);
    }
    ArrayNode steps = root.putArray("steps");
    for (Step s : plan.steps()) {
      ObjectNode step = steps.addObject();
      step.put("number", s.number())
          .put("action", s.action().name())
          .put("object", s.object())
          .put("summary", s.summary());
      s.kubectl().forEach(step.putArray("kubectl")::add);
      s.manifest().ifPresent(m -> step.set("manifest", m));
    }
    plan.refusals().forEach(root.putArray("refusals")::add);
    plan.warnings().forEach(root.putArray("warnings")::add);
    try {
      return mapper.writeValueAsString(root);
    } catch (com.fasterxml.jackson.core.JsonProcessingException e) {
      throw new IllegalStateException(e);
    }
  }
}
