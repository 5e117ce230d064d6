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
          .build();
    }
    if (first.endsWith(".sh")) {
      return Launch.builder().kind(LaunchKind.SCRIPT).program(first).build();
    }
    if (PYTHON.matcher(first).matches()) {
      for (int j = i + 1; j < argv.size(); j++) {
        String a = argv.get(j);
        if (a.equals("-m") && j + 1 < argv.size()) {
          return module(argv.get(j + 1));
        }
        if (a.startsWith("-m") && a.length() > 2) {
          return module(a.substring(2));
        }
        if (!a.startsWith("-")) {
          return Launch.builder()
              .kind(LaunchKind.PYTHON_FILE)
              .program("python " + basename(a))
              .build();
        }
      }
      return Launch.builder().kind(LaunchKind.UNKNOWN).program("python").build();
    }
    return Launch.builder().kind(LaunchKind.EXECUTABLE).program(first).build();
  }

  private static Launch module(String module) {
    return Launch.builder().kind(LaunchKind.PYTHON_MODULE).program("python -m " + module).build();
  }

  private static String basename(String path) {
    return path.substring(path.lastIndexOf('/') + 1);
  }
}
