package ai.gpustack.kvcache.operator;

import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;

/** This build's version and the operator image built from it. */
public final class Release {
  /** The project version, filtered into the jar by the build. */
  public static final String VERSION = read();

  /** The operator image the deployment manifests run (built by {@code -Pimage}). */
  public static final String IMAGE = "ghcr.io/gpustack/kvcache-operator:" + VERSION;

  private Release() {}

  private static String read() {
    try (InputStream in = Release.class.getResourceAsStream("version.txt")) {
      if (in == null) {
        throw new IllegalStateException("version.txt is missing from the jar: a broken build");
      }
      return new String(in.readAllBytes(), StandardCharsets.UTF_8).strip();
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }
}
