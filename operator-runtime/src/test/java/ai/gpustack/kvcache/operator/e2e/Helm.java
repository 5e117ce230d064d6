package ai.gpustack.kvcache.operator.e2e;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.TimeUnit;

/**
 * The {@code helm} that {@code tools/helm/build.sh} builds from its Go module, found by the path
 * the script prints last. There is no other way to get it: what a person runs is what the tests
 * run. Where it cannot be built the suite fails with the script's last line.
 */
final class Helm {
  static final Path SCRIPT =
      Path.of("..", "tools", "helm", "build.sh").toAbsolutePath().normalize();
  static final Path CHART =
      Path.of("..", "deploy", "helm", "kvcache-operator").toAbsolutePath().normalize();

  private Helm() {}

  /** The helm binary's path, built on first use. */
  static Path binary() {
    try {
      Files.createDirectories(ControlPlane.WORK);
      Path log = ControlPlane.WORK.resolve("helm-build.log");
      Process p =
          new ProcessBuilder(SCRIPT.toString())
              .redirectErrorStream(true)
              .redirectOutput(log.toFile())
              .start();
      if (!p.waitFor(30, TimeUnit.MINUTES)) {
        p.destroyForcibly();
        throw new IllegalStateException("tools/helm/build.sh did not finish; see " + log);
      }
      List<String> lines = Files.readAllLines(log);
      String last = lines.isEmpty() ? "" : lines.get(lines.size() - 1);
      if (!last.startsWith("bin: ")) {
        throw new IllegalStateException("tools/helm/build.sh did not build helm: " + last);
      }
      return Path.of(last.substring("bin: ".length())).resolve("helm");
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new IllegalStateException(e);
    }
  }
}
