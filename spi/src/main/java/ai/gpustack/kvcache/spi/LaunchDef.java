package ai.gpustack.kvcache.spi;

import java.util.List;
import java.util.regex.Pattern;
import org.immutables.value.Value;

/**
 * The program a container's argv ({@code command} then {@code args}) launches. Python interpreters
 * are normalised to {@code python}, so {@code /usr/bin/python3.11 -m
 * vllm.entrypoints.openai.api_server} is the program {@code python -m
 * vllm.entrypoints.openai.api_server}.
 */
@Value.Immutable
abstract class LaunchDef {
  private static final Pattern PYTHON = Pattern.compile("python(\\d+(\\.\\d+)?)?");
  private static final List<String> SHELLS = List.of("sh", "bash", "dash", "ash", "zsh");

  public abstract LaunchKind kind();

  /** {@code vllm}, {@code python -m sglang.launch_server}, {@code sh -c}, {@code start.sh}. */
  public abstract String program();

  /** The argv after the program: subcommands first, where the program has them. */
  public abstract List<String> arguments();

  /**
   * Whether this launch is {@code entry}: a program, or a program followed by the subcommands that
   * must come next ({@code lmdeploy serve api_server} is launched by {@code lmdeploy serve
   * api_server --server-port 23333}, not by {@code lmdeploy chat}).
   */
  public boolean startsWith(String entry) {
    if (entry.equals(program())) {
      return true;
    }
    if (!entry.startsWith(program() + " ")) {
      return false;
    }
    List<String> subcommands = List.of(entry.substring(program().length() + 1).split(" "));
    return arguments().size() >= subcommands.size()
        && arguments().subList(0, subcommands.size()).equals(subcommands);
  }

  /** Reads the launch of {@code argv}, the container's command followed by its args. */
  public static Launch identify(List<String> argv) {
    int i = 0;
    if (i < argv.size() && basename(argv.get(i)).equals("env")) {
      i++;
      while (i < argv.size() && (argv.get(i).contains("=") || argv.get(i).startsWith("-"))) {
        i++;
      }
    }
    if (i >= argv.size()) {
      return Launch.builder().kind(LaunchKind.UNKNOWN).program("").build();
    }
    String first = basename(argv.get(i));
    if (SHELLS.contains(first)) {
      boolean inline =
          argv.subList(i + 1, argv.size()).stream().anyMatch(a -> a.matches("-[a-z]*c[a-z]*"));
      return Launch.builder()
          .kind(inline ? LaunchKind.SHELL : LaunchKind.SCRIPT)
          .program(first + (inline ? " -c" : ""))
          .addAllArguments(rest(argv, i + 1))
          .build();
    }
    if (first.endsWith(".sh")) {
      return Launch.builder()
          .kind(LaunchKind.SCRIPT)
          .program(first)
          .addAllArguments(rest(argv, i + 1))
          .build();
    }
    if (PYTHON.matcher(first).matches()) {
      for (int j = i + 1; j < argv.size(); j++) {
        String a = argv.get(j);
        if (a.equals("-m") && j + 1 < argv.size()) {
          return module(argv.get(j + 1), rest(argv, j + 2));
        }
        if (a.startsWith("-m") && a.length() > 2) {
          return module(a.substring(2), rest(argv, j + 1));
        }
        if (!a.startsWith("-")) {
          return Launch.builder()
              .kind(LaunchKind.PYTHON_FILE)
              .program("python " + basename(a))
              .addAllArguments(rest(argv, j + 1))
              .build();
        }
      }
      return Launch.builder().kind(LaunchKind.UNKNOWN).program("python").build();
    }
    return Launch.builder()
        .kind(LaunchKind.EXECUTABLE)
        .program(first)
        .addAllArguments(rest(argv, i + 1))
        .build();
  }

  private static Launch module(String module, List<String> arguments) {
    return Launch.builder()
        .kind(LaunchKind.PYTHON_MODULE)
        .program("python -m " + module)
        .addAllArguments(arguments)
        .build();
  }

  private static List<String> rest(List<String> argv, int from) {
    return argv.subList(Math.min(from, argv.size()), argv.size());
  }

  private static String basename(String path) {
    return path.substring(path.lastIndexOf('/') + 1);
  }
}
