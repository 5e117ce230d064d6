package ai.gpustack.kvcache.operator.cli;

import ai.gpustack.kvcache.cluster.Manifests;
import ai.gpustack.kvcache.operator.preflight.Inventory;
import ai.gpustack.kvcache.operator.preflight.Preflight;
import ai.gpustack.kvcache.operator.preflight.Report;
import ai.gpustack.kvcache.operator.preflight.ReportTable;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.SerializationFeature;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.KubernetesClientException;
import java.io.PrintWriter;
import java.io.UncheckedIOException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.Callable;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

/** {@code kvcache preflight}: the upgrade guide's checks as one command. */
@Command(
    name = "preflight",
    mixinStandardHelpOptions = true,
    description = {
      "Checks, before the operator is upgraded or the dtype ownership Setting flipped, what would"
          + " break: every Binding's dtype against the engines (and versions) of the deployments"
          + " and injected workloads naming it, roles that pass --kv-cache-dtype themselves, Pod"
          + " templates opting into injection that the webhook would refuse, stored auto"
          + " Bindings, and which replicas would roll.",
      "Reads the current kubeconfig context, or with -f only the manifests given (kubectl get -o"
          + " yaml dumps included).",
      "Exit codes: 0 nothing will break; 1 something will break or be refused; 2 could not"
          + " read."
    })
final class PreflightCommand implements Callable<Integer> {
  @Option(
      names = {"-f", "--filename"},
      description = "Manifest files or directories to check instead of a cluster.")
  List<Path> files = new ArrayList<>();

  @Option(
      names = "--kubeconfig",
      description = "Kubeconfig file; $KUBECONFIG, ~/.kube/config or in-cluster when absent.")
  Path kubeconfig;

  @Option(
      names = {"-o", "--output"},
      defaultValue = "table",
      description = "table (for people) or json (for scripts); default ${DEFAULT-VALUE}.")
  String output;

  @Option(
      names = "--color",
      defaultValue = "auto",
      description = "auto (on a terminal, unless NO_COLOR is set), always or never.")
  String color;

  @CommandLine.Spec CommandLine.Model.CommandSpec spec;

  @Override
  public Integer call() {
    PrintWriter out = spec.commandLine().getOut();
    PrintWriter err = spec.commandLine().getErr();
    if (!output.equals("table") && !output.equals("json")) {
      throw new CommandLine.ParameterException(
          spec.commandLine(), "-o " + output + ": use table or json");
    }
    if (!List.of("auto", "always", "never").contains(color)) {
      throw new CommandLine.ParameterException(
          spec.commandLine(), "--color " + color + ": use auto, always or never");
    }
    if (!files.isEmpty() && kubeconfig != null) {
      throw new CommandLine.ParameterException(
          spec.commandLine(), "-f reads manifests and --kubeconfig a cluster: pass one of them");
    }
    Inventory inventory;
    try {
      inventory = files.isEmpty() ? cluster() : files();
    } catch (Manifests.UnreadableManifest | Inventory.Unreadable | UncheckedIOException e) {
      err.println("kvcache preflight: " + e.getMessage());
      return 2;
    } catch (KubernetesClientException e) {
      err.println(
          "kvcache preflight: cannot read the cluster: "
              + String.valueOf(e.getMessage()).lines().findFirst().orElse(""));
      return 2;
    }
    Report report = new Preflight(Engines.load(spec.commandLine())).run(inventory);
    if (output.equals("json")) {
      try {
        out.println(
            new ObjectMapper()
                .enable(SerializationFeature.INDENT_OUTPUT)
                .writeValueAsString(report));
      } catch (com.fasterxml.jackson.core.JsonProcessingException e) {
        throw new IllegalStateException(e);
      }
      out.flush();
    } else {
      new ReportTable(ReportTable.colour(color, System.getenv())).print(report, out);
    }
    return report.exitCode();
  }

  private Inventory files() {
    return Inventory.fromFiles("files " + files, new ArrayList<>(Manifests.objects(files)));
  }

  private Inventory cluster() {
    try (KubernetesClient client = Clients.oneShot(kubeconfig)) {
      return Inventory.fromCluster(client);
    }
  }
}
