package ai.gpustack.kvcache.operator.cli;

import picocli.CommandLine;
import picocli.CommandLine.Command;

/** The {@code kvcache} command-line tool: one jar, one subcommand per job. */
@Command(
    name = "kvcache",
    mixinStandardHelpOptions = true,
    versionProvider = KvCacheCommand.Version.class,
    description = "Runs and checks the KV cache dtype enforcement of gpustack-kvcache.",
    subcommands = {
      EnginesCommand.class,
      MigrateCommand.class,
      PreflightCommand.class,
      ReviewCommand.class,
      RenderCommand.class,
      RunCommand.class,
      SandboxCommand.class,
      VerifyCommand.class,
      WebhookCommand.class
    })
public final class KvCacheCommand implements Runnable {
  @CommandLine.Spec CommandLine.Model.CommandSpec spec;

  public static void main(String[] args) {
    System.exit(execute(args));
  }

  /** Runs {@code kvcache} with {@code args} and returns its exit code. */
  public static int execute(String... args) {
    return new CommandLine(new KvCacheCommand()).execute(args);
  }

  @Override
  public void run() {
    throw new CommandLine.ParameterException(spec.commandLine(), "a subcommand is required");
  }

  static final class Version implements CommandLine.IVersionProvider {
    @Override
    public String[] getVersion() {
      return new String[] {"kvcache " + ai.gpustack.kvcache.operator.Release.VERSION};
    }
  }
}
