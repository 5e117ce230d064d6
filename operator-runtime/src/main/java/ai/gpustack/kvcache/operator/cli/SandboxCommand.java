package ai.gpustack.kvcache.operator.cli;

import ai.gpustack.kvcache.sandbox.Faults;
import ai.gpustack.kvcache.spi.EngineRegistry;
import java.io.PrintWriter;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.concurrent.Callable;
import java.util.concurrent.CountDownLatch;
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
    PrintWriter out = spec.commandLine().getOut();
    if (noOperator && !serve) {
      throw new CommandLine.ParameterException(
          spec.commandLine(),
          "--no-operator needs --serve: without an operator there is no story to tell");
    }
    Faults injected = Faults.none();
    if (faults != null) {
      if (!serve) {
        throw new CommandLine.ParameterException(
            spec.commandLine(), "--faults needs --serve: the story runs without faults");
      }
      try {
        injected = Faults.parse(faults);
      } catch (IllegalArgumentException e) {
        throw new CommandLine.ParameterException(spec.commandLine(), e.getMessage());
      }
    }
    try (Sandbox sandbox = Sandbox.start(EngineRegistry.load(), port, out, !noOperator)) {
      sandbox.applyExamples();
      if (injected.active()) {
        Faults counted = injected;
        sandbox.server().faults(counted);
        out.println();
        out.println("faults: " + counted + " (spared: the sandbox's own kubelet and controllers)");
        Runtime.getRuntime()
            .addShutdownHook(
                new Thread(
                    () -> {
                      out.println("faults injected: " + counted.total() + " " + counted.injected());
                      out.flush();
                    }));
      }
      if (noOperator) {
        Files.writeString(kubeconfig, sandbox.server().kubeconfig());
        out.println();
        out.println(
            "No operator runs in this process: start one with"
                + " 'kvcache run --kubeconfig "
                + kubeconfig.toAbsolutePath()
                + " --no-webhook'.");
        out.println("ready: " + kubeconfig.toAbsolutePath());
        out.flush();
        awaitStop();
        return 0;
      }
      boolean settled = sandbox.awaitSettled();
      sandbox.report();
      if (serve) {
        Files.writeString(kubeconfig, sandbox.server().kubeconfig());
        out.println();
        out.println("ready: " + kubeconfig.toAbsolutePath());
        out.flush();
        awaitStop();
        return 0;
      }
      sandbox.flip(false);
      sandbox.reapply(
          "04-refused.yaml",
          "With the Setting off nothing is refused: the deployments refused earlier are admitted");
      settled &= sandbox.awaitSettled();
      sandbox.report();
      sandbox.flip(true);
      settled &= sandbox.awaitSettled();
      sandbox.report();
      out.println();
      out.println(settled ? "sandbox: done" : "sandbox: some deployments did not settle in time");
      out.flush();
      return settled ? 0 : 1;
    }
  }

  private static void awaitStop() throws InterruptedException {
    CountDownLatch stop = new CountDownLatch(1);
    Runtime.getRuntime().addShutdownHook(new Thread(stop::countDown));
    stop.await();
  }
}
