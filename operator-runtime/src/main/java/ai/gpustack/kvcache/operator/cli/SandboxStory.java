package ai.gpustack.kvcache.operator.cli;

import ai.gpustack.kvcache.sandbox.Faults;
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
    PrintWriter out = options.spec.commandLine().getOut();
    Faults injected = faults();
    try (Sandbox sandbox =
        Sandbox.start(
            Engines.load(options.spec.commandLine()), options.port, out, !options.noOperator)) {
      sandbox.applyExamples();
      if (injected.active()) {
        inject(sandbox, injected, out);
      }
      if (options.noOperator) {
        return serve(sandbox, out);
      }
      boolean settled = sandbox.awaitSettled();
      sandbox.report();
      if (options.serve) {
        return serve(sandbox, out);
      }
      return story(sandbox, settled, out);
    }
  }

  /** The faults --faults asks for, once the options that need --serve are checked. */
  private Faults faults() {
    CommandLine commandLine = options.spec.commandLine();
    if (options.noOperator && !options.serve) {
      throw new CommandLine.ParameterException(
          commandLine,
          "--no-operator needs --serve: without an operator there is no story to tell");
    }
    if (options.faults == null) {
      return Faults.none();
    }
    if (!options.serve) {
      throw new CommandLine.ParameterException(
          commandLine, "--faults needs --serve: the story runs without faults");
    }
    try {
      return Faults.parse(options.faults);
    } catch (IllegalArgumentException e) {
      throw new CommandLine.ParameterException(commandLine, e.getMessage());
    }
  }

  /** Injects {@code faults} into the API server; their count is printed on the way out. */
  private static void inject(Sandbox sandbox, Faults faults, PrintWriter out) {
    sandbox.server().faults(faults);
    out.println();
    out.println("faults: " + faults + " (spared: the sandbox's own kubelet and controllers)");
    Runtime.getRuntime()
        .addShutdownHook(
            new Thread(
                () -> {
                  out.println("faults injected: " + faults.total() + " " + faults.injected());
                  out.flush();
                }));
  }

  /** Writes the kubeconfig and serves until the process is stopped. */
  private int serve(Sandbox sandbox, PrintWriter out) throws Exception {
    Path kubeconfig = options.kubeconfig;
    Files.writeString(kubeconfig, sandbox.server().kubeconfig());
    out.println();
    if (options.noOperator) {
      out.println(
          "No operator runs in this process: start one with"
              + " 'kvcache run --kubeconfig "
              + kubeconfig.toAbsolutePath()
              + " --no-webhook'.");
    }
    out.println("ready: " + kubeconfig.toAbsolutePath());
    out.flush();
    awaitStop();
    return 0;
  }

  /** The rest of the story: the Setting flipped off and back on, a report after each. */
  private static int story(Sandbox sandbox, boolean settled, PrintWriter out) {
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

  private static void awaitStop() throws InterruptedException {
    CountDownLatch stop = new CountDownLatch(1);
    Runtime.getRuntime().addShutdownHook(new Thread(stop::countDown));
    stop.await();
  }
}
