package ai.gpustack.kvcache.operator;

import com.sun.net.httpserver.HttpExchange;
import com.sun.net.httpserver.HttpServer;
import io.micrometer.prometheusmetrics.PrometheusMeterRegistry;
import java.io.IOException;
import java.io.OutputStream;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.util.function.BooleanSupplier;

/**
 * The operator's plain-HTTP management endpoints: {@code /healthz}, {@code /readyz}, {@code
 * /metrics}.
 */
public final class HealthServer implements AutoCloseable {
  private final HttpServer server;

  private HealthServer(HttpServer server) {
    this.server = server;
  }

  public static HealthServer start(
      InetSocketAddress listen,
      BooleanSupplier live,
      BooleanSupplier ready,
      PrometheusMeterRegistry registry)
      throws IOException {
    HttpServer server = HttpServer.create(listen, 16);
    probe(server, "/healthz", live, "ok", "not started");
    probe(server, "/readyz", ready, "ready", "caches have not synced");
    server.createContext(
        "/metrics",
        e -> reply(e, 200, registry.scrape(), "text/plain; version=0.0.4; charset=utf-8"));
    server.start();
    return new HealthServer(server);
  }

  public InetSocketAddress address() {
    return server.getAddress();
  }

  /** A probe asks once per request, so its status and its text always agree. */
  private static void probe(
      HttpServer server, String path, BooleanSupplier check, String ok, String failing) {
    server.createContext(
        path,
        e -> {
          boolean passing = check.getAsBoolean();
          reply(e, passing ? 200 : 503, passing ? ok : failing, "text/plain");
        });
  }

  private static void reply(HttpExchange e, int status, String body, String type)
      throws IOException {
    byte[] bytes = (body.endsWith("\n") ? body : body + "\n").getBytes(StandardCharsets.UTF_8);
    e.getResponseHeaders().set("Content-Type", type);
    e.sendResponseHeaders(status, bytes.length);
    try (OutputStream out = e.getResponseBody()) {
      out.write(bytes);
    }
  }

  @Override
  public void close() {
    server.stop(0);
  }
}
