package ai.gpustack.kvcache.operator.e2e;

import java.nio.file.Path;

/**
 * The {@code helm} that {@code tools/helm/build.sh} builds from its Go module. There is no other
 * way to get it: what a person runs is what the tests run.
 */
final class Helm {
  static final Path CHART =
      Path.of("..", "deploy", "helm", "kvcache-operator").toAbsolutePath().normalize();

  private Helm() {}

  /** The helm binary's path, built on first use. */
  static Path binary() {
    return BuildScript.folder("helm/build.sh", "bin: ").resolve("helm");
  }
}
