package ai.gpustack.kvcache.operator.cli;

import ai.gpustack.kvcache.api.Quoting;
import ai.gpustack.kvcache.api.Settings;
import ai.gpustack.kvcache.cluster.MemoryClusterView;
import ai.gpustack.kvcache.observe.DtypeObserver;
import ai.gpustack.kvcache.observe.FairFetcher;
import ai.gpustack.kvcache.observe.Observation;
import ai.gpustack.kvcache.observe.PodProxyFetcher;
import ai.gpustack.kvcache.observe.Verdict;
import ai.gpustack.kvcache.operator.preflight.ReportTable;
import ai.gpustack.kvcache.resources.KVCachePoolBinding;
import ai.gpustack.kvcache.resources.Keys;
import ai.gpustack.kvcache.resources.ModelDeployment;
import ai.gpustack.kvcache.resources.Pods;
import ai.gpustack.kvcache.resources.Setting;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.SerializationFeature;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.fabric8.kubernetes.api.model.HasMetadata;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.KubernetesClientException;
import java.io.PrintWriter;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.function.Function;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

/** {@code kvcache verify}: what every attached replica's engine actually runs. */
@Command(
    name = "verify",
    mixinStandardHelpOptions = true,
    description = {
      "For every replica of every pool-attached ModelDeployment and every injected Pod: the"
          + " Binding's dtype, the dtype its argv hands the engine (the last occurrence the"
          + " engine's parser reads), and the dtype the engine reports on its own endpoint, read"
          + " through the API server's Pod proxy; compared by KV format.",
      "Exit codes: 0 no replica differs; 1 a replica differs; 2 the cluster could not be read."
    })
final class VerifyCommand implements java.util.concurrent.Callable<Integer> {
  @Option(
      names = "--kubeconfig",
      description = "Kubeconfig file; $KUBECONFIG, ~/.kube/config or in-cluster when absent.")
  Path kubeconfig;

  @Option(
      names = {"-n", "--namespace"},
      description = "The namespace to verify; the context's namespace when absent.")
  String namespace;

  @Option(
      names = {"-A", "--all-namespaces"},
      description = "Verify every namespace.")
  boolean all;

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
    if (!output.equals("table") && !output.equals("json")) {
      throw new CommandLine.ParameterException(
          spec.commandLine(), "-o " + output + ": use table or json");
    }
    if (all && namespace != null) {
      throw new CommandLine.ParameterException(
          spec.commandLine(), "-n names one namespace and -A every one: pass one of them");
    }
    List<Observation> replicas;
    try (KubernetesClient client = Clients.oneShot(kubeconfig)) {
      replicas = verify(client);
    } catch (KubernetesClientException e) {
      err.println(
          "kvcache verify: cannot read the cluster: "
              + String.valueOf(e.getMessage()).lines().findFirst().orElse(""));
      return 2;
    }
    if (output.equals("json")) {
      out.println(json(replicas));
    } else {
      table(replicas, ReportTable.colour("auto", System.getenv()), out);
    }
    out.flush();
    return replicas.stream().anyMatch(o -> o.verdict() == Verdict.DIFFERS) ? 1 : 0;
  }

  private List<Observation> verify(KubernetesClient client) {
    String ns = all ? null : namespace != null ? namespace : contextNamespace(client);
    List<HasMetadata> objects = new ArrayList<>();
    List<ModelDeployment> deployments =
        ns == null
            ? client.resources(ModelDeployment.class).inAnyNamespace().list().getItems()
            : client.resources(ModelDeployment.class).inNamespace(ns).list().getItems();
    List<Pod> pods =
        ns == null
            ? client.pods().inAnyNamespace().list().getItems()
            : client.pods().inNamespace(ns).list().getItems();
    objects.addAll(deployments);
    objects.addAll(pods);
    objects.addAll(
        ns == null
            ? client.resources(KVCachePoolBinding.class).inAnyNamespace().list().getItems()
            : client.resources(KVCachePoolBinding.class).inNamespace(ns).list().getItems());
    objects.addAll(
        client.resources(Setting.class).inNamespace(Settings.NAMESPACE).list().getItems());
    MemoryClusterView cluster = MemoryClusterView.of(objects);
    try (PodProxyFetcher proxy = Clients.podProxy(client)) {
      return observe(
          new DtypeObserver(
              Engines.load(spec.commandLine()),
              new FairFetcher(proxy, FairFetcher.LIMIT, FairFetcher.PER_NAMESPACE)),
          deployments,
          pods,
          cluster);
    }
  }

  private static List<Observation> observe(
      DtypeObserver observer,
      List<ModelDeployment> deployments,
      List<Pod> pods,
      MemoryClusterView cluster) {
    List<CompletableFuture<Observation>> reads = new ArrayList<>();
    for (ModelDeployment md : deployments) {
      if (md.getSpec() == null || md.getSpec().kvCache().isEmpty()) {
        continue;
      }
      pods.stream()
          .filter(p -> p.getMetadata().getDeletionTimestamp() == null)
          .filter(p -> md.getMetadata().getNamespace().equals(p.getMetadata().getNamespace()))
          .filter(p -> md.getMetadata().getName().equals(label(p, Keys.INSTANCE)))
          .filter(p -> label(p, Keys.MANAGED_BY) != null)
          .forEach(p -> reads.add(observer.managed(md, p, cluster)));
    }
    pods.stream()
        .filter(p -> p.getMetadata().getDeletionTimestamp() == null)
        .filter(Pods::injectionRequested)
        .filter(Pods::injectionRecorded)
        .forEach(p -> reads.add(observer.injected(p, cluster)));
    boolean owned = cluster.settings().kvCacheDtypeOwned();
    return reads.stream()
        .map(CompletableFuture::join)
        .map(o -> owned ? o : o.unowned())
        .sorted(
            Comparator.comparing(Observation::namespace)
                .thenComparing(Observation::owner)
                .thenComparing(Observation::pod))
        .toList();
  }

  private static String label(Pod pod, String key) {
    return pod.getMetadata().getLabels() == null ? null : pod.getMetadata().getLabels().get(key);
  }

  private static String contextNamespace(KubernetesClient client) {
    return Optional.ofNullable(client.getNamespace()).orElse("default");
  }

  static String json(List<Observation> replicas) {
    ObjectMapper mapper = new ObjectMapper().enable(SerializationFeature.INDENT_OUTPUT);
    ObjectNode root = mapper.createObjectNode();
    ArrayNode list = root.putArray("replicas");
    for (Observation o : replicas) {
      ObjectNode r = list.addObject();
      r.put("namespace", o.namespace())
          .put("pod", o.pod())
          .put("owner", o.owner())
          .put("engine", o.engine())
          .put("binding", o.binding())
          .put("bindingDtype", o.bindingDtype())
          .put("argvDtype", o.argvDtype().orElse(null))
          .put("observedDtype", o.observedDtype().orElse(null))
          .put("source", o.source())
          .put("verdict", o.verdict().word());
    }
    try {
      return mapper.writeValueAsString(root);
    } catch (com.fasterxml.jackson.core.JsonProcessingException e) {
      throw new IllegalStateException(e);
    }
  }

  /** A value from a tenant's objects, as a terminal may show it: escaped and short. */
  private static String shown(String value) {
    return Quoting.printable(value, 64);
  }

  static void table(List<Observation> replicas, boolean colour, PrintWriter out) {
    if (replicas.isEmpty()) {
      out.println("No pool-attached replicas.");
      return;
    }
    ReportTable console = new ReportTable(colour);
    Function<String, String> tint =
        cell ->
            cell.equals(Verdict.MATCHES.word())
                ? ReportTable.GREEN
                : cell.equals(Verdict.DIFFERS.word())
                    ? ReportTable.RED
                    : cell.equals(Verdict.NOT_REPORTED.word()) ? ReportTable.YELLOW : "";
    String owner = null;
    List<List<String>> rows = new ArrayList<>();
    for (Observation o : replicas) {
      String group = o.namespace() + " " + o.owner();
      if (!group.equals(owner)) {
        if (!rows.isEmpty()) {
          console.table(rows, out, tint);
          rows.clear();
          out.println();
        }
        owner = group;
        out.println(
            shown(o.owner())
                + " in "
                + o.namespace()
                + " (Binding "
                + shown(o.binding())
                + ", dtype "
                + (o.bindingDtype().isEmpty() ? "?" : shown(o.bindingDtype()))
                + ")");
        rows.add(List.of("POD", "ENGINE", "ARGV", "REPORTED", "VERDICT", "SOURCE"));
      }
      rows.add(
          List.of(
              o.pod(),
              shown(o.engine()),
              shown(o.argvDtype().orElse("-")),
              o.observedDtype().orElse("-"),
              o.verdict().word(),
              o.source()));
    }
    console.table(rows, out, tint);
    long differs = replicas.stream().filter(o -> o.verdict() == Verdict.DIFFERS).count();
    long matches = replicas.stream().filter(o -> o.verdict() == Verdict.MATCHES).count();
    out.println();
    out.println(
        replicas.size()
            + " replicas: "
            + matches
            + " match, "
            + differs
            + " differ, "
            + (replicas.size() - matches - differs)
            + " not reported or not owned.");
  }
}
