package ai.gpustack.kvcache.operator.e2e;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;

/**
 * A script under {@code tools/} that builds something once and caches it, run as a person runs it:
 * its output kept under target/e2e, the folder it prints last (after {@code prefix}) returned.
 * Where it cannot build, the suite fails with the script's last line; there is no other way in.
 */
final class BuildScript {
  private BuildScript() {}

  /**
   * Runs {@code tools/<script> args...} and returns the folder its last line names after {@code
   * prefix}.
   */
  static Path folder(String script, String prefix, String... args) {
    Path path = Path.of("..", "tools").resolve(script).toAbsolutePath().normalize();
    try {
      Files.createDirectories(ControlPlane.WORK);
      Path log =
          ControlPlane.WORK.resolve(
              String.join("-", script.replace('/', '-'), String.join("-", args)) + ".log");
      List<String> command = new ArrayList<>(List.of(path.toString()));
      command.addAll(List.of(args));
      Process p =
          new ProcessBuilder(command)
              .redirectErrorStream(true)
              .redirectOutput(log.toFile())
              .start();
      if (!p.waitFor(30, TimeUnit.MINUTES)) {
        p.destroyForcibly();
        throw new IllegalStateException("tools/" + script + " did not finish; see " + log);
      }
      List<String> lines = Files.readAllLines(log);
      String last = lines.isEmpty() ? "" : lines.get(lines.size() - 1);
      if (!last.startsWith(prefix)) {
        throw new IllegalStateException("tools/" + script + " did not build: " + last);
      }
      return Path.of(last.substring(prefix.length()));
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new IllegalStateException(e);
    }
  }
}
