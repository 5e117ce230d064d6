package ai.gpustack.kvcache.operator.cli;

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

  @CommandLine.Spec CommandLine.Model.CommandSpec spec;

  @Override
  public Integer call() throws Exception {
    PrintWriter out = spec.commandLine().getOut();
    try (Sandbox sandbox = Sandbox.start(EngineRegistry.load(), port, out)) {
      sandbox.applyExamples();
      boolean settled = sandbox.awaitSettled();
      sandbox.report();
      if (serve) {
        Files.writeString(kubeconfig, sandbox.server().kubeconfig());
        out.println();
        out.println("ready: " + kubeconfig.toAbsolutePath());
        out.flush();
        CountDownLatch stop = new CountDownLatch(1);
        Runtime.getRuntime().addShutdownHook(new Thread(stop::countDown));
        stop.await();
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
}
