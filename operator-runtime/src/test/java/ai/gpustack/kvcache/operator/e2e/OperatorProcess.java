package ai.gpustack.kvcache.operator.e2e;

import ai.gpustack.kvcache.operator.cli.ShippedJar;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.ServerSocket;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;

/**
 * {@code kvcache run} from the shipped jar as a process of its own, on the shipped image's JVM
 * options, authorized only by the kubeconfig it is given, its webhook on a loopback port with the
 * self-signed certificate.
 */
public final class OperatorProcess implements AutoCloseable {
  private final Process process;
  private final Path log;
  private final int healthPort;

  private OperatorProcess(Process process, Path log, int healthPort) {
    this.process = process;
    this.log = log;
    this.healthPort = healthPort;
  }

  /** Starts {@code kvcache run} as {@code identity} and waits until it answers {@code /readyz}. */
  static OperatorProcess start(
      Path kubeconfig, int webhookPort, String identity, Path log, String... more) {
    return start(ShippedJar.JAR, kubeconfig, webhookPort, identity, log, more);
  }

  /** The same, from {@code jar}: another release's. */
  static OperatorProcess start(
      Path jar, Path kubeconfig, int webhookPort, String identity, Path log, String... more) {
    int healthPort = freePort();
    List<String> args =
        new ArrayList<>(
            List.of(
                "run",
                "--kubeconfig",
                kubeconfig.toString(),
                "--self-signed-webhook-cert",
                "--webhook-listen",
                "127.0.0.1:" + webhookPort,
                "--health-listen",
                "127.0.0.1:" + healthPort,
                "--identity",
                identity));
    args.addAll(List.of(more));
    try {
      Process process =
          ShippedJar.start(jar, ShippedJar.IMAGE_JVM, log, args.toArray(String[]::new));
      OperatorProcess operator = new OperatorProcess(process, log, healthPort);
      operator.awaitReady(Duration.ofSeconds(120));
      return operator;
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  static int freePort() {
    try (ServerSocket socket = new ServerSocket(0)) {
      return socket.getLocalPort();
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  private void awaitReady(Duration patience) {
    HttpClient http = HttpClient.newHttpClient();
    long deadline = System.nanoTime() + patience.toNanos();
    while (System.nanoTime() < deadline) {
      if (!process.isAlive()) {
        throw new IllegalStateException("kvcache run exited: " + tail());
      }
      try {
        HttpResponse<String> ready =
            http.send(
                HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + healthPort + "/readyz"))
                    .timeout(Duration.ofSeconds(2))
                    .build(),
                HttpResponse.BodyHandlers.ofString());
        if (ready.statusCode() == 200) {
          return;
        }
      } catch (IOException e) {
        // not listening yet
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
        throw new IllegalStateException(e);
      }
      sleep(300);
    }
    throw new IllegalStateException("kvcache run was not ready in " + patience + ": " + tail());
  }

  public long pid() {
    return process.pid();
  }

  /** Its management port, serving {@code /healthz}, {@code /readyz} and {@code /metrics}. */
  public int healthPort() {
    return healthPort;
  }

  /** Its log so far. */
  public String log() {
    try {
      return Files.readString(log);
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  /** The log lines where the API server refused it something. */
  public List<String> forbidden() {
    return log().lines().filter(l -> l.contains("Forbidden") || l.contains("forbidden")).toList();
  }

  public boolean alive() {
    return process.isAlive();
  }

  private String tail() {
    List<String> lines = log().lines().toList();
    return String.join("\n", lines.subList(Math.max(0, lines.size() - 30), lines.size()));
  }

  private static void sleep(long millis) {
    try {
      Thread.sleep(millis);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new IllegalStateException(e);
    }
  }

  /** Stops it as Kubernetes stops a container: SIGTERM, then SIGKILL after 30 s. */
  @Override
  public void close() {
    process.destroy();
    try {
      if (!process.waitFor(30, TimeUnit.SECONDS)) {
        process.destroyForcibly().waitFor(10, TimeUnit.SECONDS);
      }
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
  }
}
