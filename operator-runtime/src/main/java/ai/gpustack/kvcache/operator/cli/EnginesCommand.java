package ai.gpustack.kvcache.operator.cli;

import ai.gpustack.kvcache.spi.EngineRegistry;
import java.io.PrintWriter;
import java.util.concurrent.Callable;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

/** {@code kvcache engines}: the registered engines and the dtype spellings each accepts. */
@Command(
    name = "engines",
    mixinStandardHelpOptions = true,
    description = {
      "Lists the registered engines, the --kv-cache-dtype spellings each accepts per version with"
          + " where they were read, and the spellings every registered engine accepts.",
      "Exit codes: 0 listed; 1 no engine module is on the classpath; 2 bad arguments."
    })
final class EnginesCommand implements Callable<Integer> {
  enum Format {
    text,
    json,
    markdown
  }

  @Option(
      names = {"-o", "--output"},
      defaultValue = "text",
      description = "text (default), json, or markdown (docs/engines.md).")
  Format output;

  @CommandLine.Spec CommandLine.Model.CommandSpec spec;

  @Override
  public Integer call() {
    EngineRegistry registry = Engines.load(spec.commandLine());
    PrintWriter out = spec.commandLine().getOut();
    if (registry.isEmpty()) {
      spec.commandLine()
          .getErr()
          .println(
              "no engine module is on the classpath; add ai.gpustack.kvcache:kvcache-engine-vllm"
                  + " or another engine module, or name engine jars in "
                  + Engines.ENV);
      return 1;
    }
    EngineTable table = new EngineTable(registry);
    out.print(
        switch (output) {
          case text -> table.text();
          case json -> table.json();
          case markdown -> table.markdown();
        });
    out.flush();
    return 0;
  }
}
