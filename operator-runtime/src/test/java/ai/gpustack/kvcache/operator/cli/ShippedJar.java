package ai.gpustack.kvcache.operator.cli;

import java.io.IOException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;

/** How the process tests run {@code target/kvcache.jar}: the shipped jar, on this test's JVM. */
public final class ShippedJar {
  public static final Path JAR = Path.of("target", "kvcache.jar");

  /**
   * The shipped image's JVM as a process here: the Deployment's 512Mi memory limit at the
   * entrypoint's MaxRAMPercentage=75 gives a 384 MiB heap, and a container under 1,792 MiB is not a
   * server-class machine to the JVM, so it runs Serial GC. Without these a process on this machine
   * would take G1 and a quarter of its memory.
   */
  public static final List<String> IMAGE_JVM = List.of("-Xmx384m", "-XX:+UseSerialGC");

  private ShippedJar() {}

  /** {@code java -jar target/kvcache.jar args...}. */
  public static List<String> command(String... args) {
    return command(List.of(), args);
  }

  /** {@code java jvmOptions... -jar target/kvcache.jar args...}. */
  public static List<String> command(List<String> jvmOptions, String... args) {
    return command(JAR, jvmOptions, args);
  }

  private static List<String> command(Path jar, List<String> jvmOptions, String... args) {
    List<String> command = new ArrayList<>();
    command.add(ProcessHandle.current().info().command().orElse("java"));
    command.addAll(jvmOptions);
    command.add("-jar");
    command.add(jar.toString());
    command.addAll(List.of(args));
    return command;
  }

  /** Starts {@link #command}, its stdout and stderr together in {@code log}. */
  public static Process start(Path log, String... args) throws IOException {
    return start(JAR, log, args);
  }

  /** Starts {@code java -jar <jar> args...} (another release's jar), output in {@code log}. */
  public static Process start(Path jar, Path log, String... args) throws IOException {
    return start(jar, List.of(), log, args);
  }

  /** As {@link #start(Path, Path, String...)}, the JVM given {@code jvmOptions}. */
  public static Process start(Path jar, List<String> jvmOptions, Path log, String... args)
      throws IOException {
    return new ProcessBuilder(command(jar, jvmOptions, args))
        .redirectErrorStream(true)
        .redirectOutput(log.toFile())
        .start();
  }
}
