package ai.gpustack.kvcache.operator.e2e;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;

/**
 * The scripts under {@code tools/}, run as a person runs them, their output kept under target/e2e:
 * those that build something once and cache it ({@link #folder}: the folder printed last), and the
 * control plane's up and down. Where one cannot build, the suite fails with the script's last line;
 * there is no other way in.
 */
final class BuildScript {
  private BuildScript() {}

  /**
   * Runs {@code tools/<script> args...} and returns the folder its last line names after {@code
   * prefix}.
   */
  static Path folder(String script, String prefix, String... args) {
    List<String> lines =
        run(script, script.replace('/', '-') + "-" + String.join("-", args) + ".log", args);
    String last = lines.isEmpty() ? "" : lines.get(lines.size() - 1);
    if (!last.startsWith(prefix)) {
      throw new IllegalStateException("tools/" + script + " did not build: " + last);
    }
    return Path.of(last.substring(prefix.length()));
  }

  /**
   * Runs {@code tools/<script> args...} (40 minutes at most: a cold build's time) with its output
   * in target/e2e/{@code log}; returns the output's lines.
   */
  static List<String> run(String script, String log, String... args) {
    Path path = Path.of("..", "tools").resolve(script).toAbsolutePath().normalize();
    try {
      Files.createDirectories(ControlPlane.WORK);
      Path output = ControlPlane.WORK.resolve(log);
      List<String> command = new ArrayList<>(List.of(path.toString()));
      command.addAll(List.of(args));
      Process p =
          new ProcessBuilder(command)
              .redirectErrorStream(true)
              .redirectOutput(output.toFile())
              .start();
      if (!p.waitFor(40, TimeUnit.MINUTES)) {
        p.destroyForcibly();
        throw new IllegalStateException("tools/" + script + " did not finish; see " + output);
      }
      return Files.readAllLines(output);
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new IllegalStateException(e);
    }
  }
}
