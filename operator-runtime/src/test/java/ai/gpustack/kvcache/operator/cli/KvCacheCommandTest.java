package ai.gpustack.kvcache.operator.cli;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;
import picocli.CommandLine.Command;

/**
 * The top-level command registers only the subcommand it is asked for, and all of them for help.
 */
class KvCacheCommandTest {
  @Test
  void help_lists_every_subcommand() {
    CliRun help = CliRun.of("--help");

    assertThat(help.exitCode()).isZero();
    for (Class<?> subcommand : KvCacheCommand.SUBCOMMANDS) {
      assertThat(help.out()).contains(subcommand.getAnnotation(Command.class).name());
    }
  }

  @Test
  void an_unknown_subcommand_exits_2_naming_it() {
    CliRun run = CliRun.of("migrat");

    assertThat(run.exitCode()).isEqualTo(2);
    assertThat(run.err()).contains("Unmatched argument at index 0: 'migrat'").contains("migrate");
  }

  @Test
  void a_named_subcommand_is_the_only_one_registered() {
    assertThat(KvCacheCommand.commandLine("engines", "-o", "json").getSubcommands())
        .containsOnlyKeys("engines");
    assertThat(KvCacheCommand.commandLine().getSubcommands())
        .hasSameSizeAs(KvCacheCommand.SUBCOMMANDS);
  }
}
