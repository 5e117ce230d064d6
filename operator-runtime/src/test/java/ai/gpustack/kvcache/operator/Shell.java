package ai.gpustack.kvcache.operator;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.function.Predicate;
import java.util.regex.Pattern;

/**
 * Command lines as a person types them, in bash, against one cluster: {@code KUBECONFIG} names it
 * and {@code HOME} is the test's own, so kubectl's caches and config stay out of the machine's.
 */
public record Shell(Path kubeconfig, Path home) {
  /** What kubectl prints when something failed: an error, or client-go's error log lines. */
  private static final Pattern ERROR =
      Pattern.compile("(?m)^(error|Error|E\\d{4} |W\\d{4} .*(fail|error))|Failed to watch");

  /** What one command line did. */
  public record Run(int exit, String out, String err) {
    /** Exit 0 and no error printed. */
    public Run ok() {
      assertThat(exit).as("exit code; stderr: %s", err).isZero();
      return quiet();
    }

    /**
     * No error printed, whatever the exit code (kubectl diff exits 1 on differences). client-go's
     * log of a read cut short by the tool's own cancelled context (Helm's {@code --wait} ending its
     * watch, at random) is not an error.
     */
    public Run quiet() {
      String errors =
          err.lines()
              .filter(l -> !l.endsWith("err=\"context canceled\""))
              .collect(java.util.stream.Collectors.joining("\n"));
      assertThat(ERROR.matcher(errors).find()).as("stderr: %s", err).isFalse();
      return this;
    }
  }

  public Run kubectl(String args) {
    return sh("kubectl " + args);
  }

  /** Runs {@code command} in bash from {@link #home}; it must end within 90 s. */
  public Run sh(String command) {
    try {
      ProcessBuilder pb = new ProcessBuilder("bash", "-c", command).directory(home.toFile());
      pb.environment().put("KUBECONFIG", kubeconfig.toString());
      pb.environment().put("HOME", home.toString());
      Process p = pb.start();
      CompletableFuture<String> err = CompletableFuture.supplyAsync(() -> read(p.getErrorStream()));
      String out = read(p.getInputStream());
      assertThat(p.waitFor(90, TimeUnit.SECONDS)).as("%s finished", command).isTrue();
      return new Run(p.exitValue(), out, err.join());
    } catch (java.io.IOException e) {
      throw new java.io.UncheckedIOException(e);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new IllegalStateException(e);
    }
  }

  /**
   * Runs {@code command} again until {@code done} holds of its result, or {@code patience} ends.
   */
  public Run until(String command, Predicate<Run> done, Duration patience) {
    long deadline = System.nanoTime() + patience.toNanos();
    Run run = sh(command);
    while (!done.test(run) && System.nanoTime() < deadline) {
      try {
        Thread.sleep(300);
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
        throw new IllegalStateException(e);
      }
      run = sh(command);
    }
    return run;
  }

  private static String read(java.io.InputStream in) {
    try {
      return new String(in.readAllBytes(), StandardCharsets.UTF_8);
    } catch (java.io.IOException e) {
      throw new java.io.UncheckedIOException(e);
    }
  }

  /** Whether {@code program} is on this machine's PATH. */
  public static boolean onPath(String program) {
    try {
      return new ProcessBuilder("sh", "-c", "command -v " + program).start().waitFor() == 0;
    } catch (Exception e) {
      return false;
    }
  }
}
