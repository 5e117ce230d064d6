package ai.gpustack.kvcache.operator.cli;

import ai.gpustack.kvcache.sandbox.Faults;
import ai.gpustack.kvcache.spi.EngineRegistry;
import java.io.PrintWriter;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.concurrent.Callable;
import java.util.concurrent.CountDownLatch;
import picocli.CommandLine;

/**
 * What {@code kvcache sandbox} does, apart from its command so that the command loads where the
 * sandbox module is left out (the operator image) and says so instead of failing to link.
 */
final class SandboxStory implements Callable<Integer> {
  private final SandboxCommand options;

  SandboxStory(SandboxCommand options) {
    this.options = options;
  }

  @Override
  public Integer call() throws Exception {
    CommandLine.Model.CommandSpec spec = options.spec;
    boolean serve = options.serve;
    boolean noOperator = options.noOperator;
    String faults = options.faults;
    Path kubeconfig = options.kubeconfig;
    int port = options.port;
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
