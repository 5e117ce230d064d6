package ai.gpustack.kvcache.operator;

import ai.gpustack.kvcache.webhook.HttpEndpoint;
import io.micrometer.prometheusmetrics.PrometheusMeterRegistry;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.Map;
import java.util.Optional;
import java.util.function.BooleanSupplier;

/**
 * The operator's plain-HTTP management port: {@code /healthz}, {@code /readyz}, {@code /metrics}.
 * Its own event loop and handler threads, apart from the webhook's, and a client's request must
 * arrive whole within 5 s: no client of either port can keep the kubelet's probes from an answer.
 */
public final class HealthServer implements AutoCloseable {
  private final HttpEndpoint endpoint;

  private HealthServer(HttpEndpoint endpoint) {
    this.endpoint = endpoint;
  }

  public static HealthServer start(
      InetSocketAddress listen,
      BooleanSupplier live,
      BooleanSupplier ready,
      PrometheusMeterRegistry registry) {
    return new HealthServer(
        HttpEndpoint.start(
            "kvcache-health",
            listen,
            Optional.empty(),
            new HttpEndpoint.Limits(
                64 * 1024,
                Duration.ofSeconds(5),
                Duration.ofSeconds(5),
                Duration.ofSeconds(5),
                256,
                1,
                2),
            request ->
                switch (request.path()) {
                  case "/healthz" -> probe(live, "ok", "not started");
                  case "/readyz" -> probe(ready, "ready", "caches have not synced");
                  case "/metrics" ->
                      new HttpEndpoint.Response(
                          200,
                          "text/plain; version=0.0.4; charset=utf-8",
                          registry.scrape().getBytes(StandardCharsets.UTF_8),
                          Map.of());
                  default -> HttpEndpoint.Response.text(404, "no such path: " + request.path());
                }));
  }

  public InetSocketAddress address() {
    return endpoint.address();
  }

  /** A probe asks once per request, so its status and its text always agree. */
  private static HttpEndpoint.Response probe(BooleanSupplier check, String ok, String failing) {
    boolean passing = check.getAsBoolean();
    return HttpEndpoint.Response.text(passing ? 200 : 503, passing ? ok : failing);
  }

  @Override
  public void close() {
    endpoint.close();
  }
}
