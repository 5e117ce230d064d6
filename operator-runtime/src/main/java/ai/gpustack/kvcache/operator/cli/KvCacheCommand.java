package ai.gpustack.kvcache.operator.cli;

import ai.gpustack.kvcache.operator.CommonPool;
import java.util.List;
import picocli.CommandLine;
import picocli.CommandLine.Command;

/** The {@code kvcache} command-line tool: one jar, one subcommand per job. */
@Command(
    name = "kvcache",
    mixinStandardHelpOptions = true,
    versionProvider = KvCacheCommand.Version.class,
    description = "Runs and checks the KV cache dtype enforcement of gpustack-kvcache.")
public final class KvCacheCommand implements Runnable {
  /** Every subcommand, in the order help lists them. */
  static final List<Class<?>> SUBCOMMANDS =
      List.of(
          EnginesCommand.class,
          ExplainCommand.class,
          MigrateCommand.class,
          PreflightCommand.class,
          ReviewCommand.class,
          RenderCommand.class,
          RunCommand.class,
          SandboxCommand.class,
          VerifyCommand.class,
          WebhookCommand.class);

  static {
    // before picocli or the Kubernetes client can start the pool
    CommonPool.atLeastTwoThreads();
  }

  @CommandLine.Spec CommandLine.Model.CommandSpec spec;

  public static void main(String[] args) {
    System.exit(execute(args));
  }

  /** Runs {@code kvcache} with {@code args} and returns its exit code. */
  public static int execute(String... args) {
    return commandLine(args).execute(args);
  }

  /**
   * The command line for {@code args}: with only the subcommand they name when they name one, since
   * picocli reflects over every registered subcommand's options (and loads the classes they name)
   * before parsing; with all of them otherwise, for help and for the error naming the subcommands.
   */
  static CommandLine commandLine(String... args) {
    CommandLine cli = new CommandLine(new KvCacheCommand());
    String first = args.length == 0 ? "" : args[0];
    List<Class<?>> named =
        SUBCOMMANDS.stream()
            .filter(c -> c.getAnnotation(Command.class).name().equals(first))
            .toList();
    for (Class<?> subcommand : named.isEmpty() ? SUBCOMMANDS : named) {
      cli.addSubcommand(subcommand);
    }
    return cli;
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
