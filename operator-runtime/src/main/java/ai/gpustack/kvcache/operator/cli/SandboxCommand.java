package ai.gpustack.kvcache.operator.cli;

import java.nio.file.Path;
import java.util.concurrent.Callable;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

/** {@code kvcache sandbox}: the reference operator with no cluster. */
@Command(
    name = "sandbox",
    mixinStandardHelpOptions = true,
    description = {
      "Runs the reference operator against an embedded API server (fabric8's mock in CRUD mode)"
          + " with the CRDs installed and the admission chain wired in, applies examples/sandbox,"
          + " and tells what happened: each replica's command line, each refusal, each"
          + " condition; then turns the dtype Setting off and on and shows the rollouts.",
      "With --serve it applies the examples, writes a kubeconfig, prints 'ready: <path>' and keeps"
          + " serving kubectl until stopped.",
      "Exit codes: 0 done (or stopped); 1 the deployments did not settle."
    })
final class SandboxCommand implements Callable<Integer> {
  @Option(names = "--serve", description = "Keep serving, with a kubeconfig for kubectl.")
  boolean serve;

  @Option(
      names = "--kubeconfig-out",
      defaultValue = "sandbox.kubeconfig",
      description = "Where --serve writes the kubeconfig (default ${DEFAULT-VALUE}).")
  Path kubeconfig;

  @Option(
      names = "--port",
      defaultValue = "0",
      description = "The API server's port (default: any free one).")
  int port;

  @Option(
      names = "--no-operator",
      description =
          "With --serve: no operator in the process. The API server, the admission chain and the"
              + " kubelet serve; a 'kvcache run --kubeconfig <kubeconfig> --no-webhook' started"
              + " apart reconciles, and can be killed and restarted like the real deployment.")
  boolean noOperator;

  @Option(
      names = "--faults",
      paramLabel = "SPEC",
      description =
          "Answer the operator's, kubectl's and every other client's requests with faults:"
              + " rate=0.05,codes=409,429,500,503 (a share of requests answered with one of those"
              + " errors; 409 only on PUT and PATCH), latency=0-200ms, watch-drop=30s (each watch"
              + " closed after that long), expired=0.01 (a share of watches from a resource version"
              + " answered 410 Gone), seed=N. The sandbox's own kubelet and ReplicaSet controller"
              + " are spared. Off by default.")
  String faults;

  @CommandLine.Spec CommandLine.Model.CommandSpec spec;

  @Override
  public Integer call() throws Exception {
    if (SandboxCommand.class.getClassLoader().getResource(SANDBOX_CLASS) == null) {
      spec.commandLine()
          .getErr()
          .println(
              "kvcache sandbox: this build leaves the sandbox out (the operator image carries"
                  + " only what kvcache run needs); run it from kvcache.jar");
      return 2;
    }
    return new SandboxStory(this).call();
  }

  /** A class of the sandbox module, looked up as a resource: nothing of it is loaded to ask. */
  private static final String SANDBOX_CLASS = "ai/gpustack/kvcache/sandbox/SandboxServer.class";
}
