package ai.gpustack.kvcache.webhook;

import ai.gpustack.kvcache.admission.Admission;
import ai.gpustack.kvcache.admission.Decision;
import ai.gpustack.kvcache.admission.Route;
import com.fasterxml.jackson.databind.JsonNode;
import io.micrometer.prometheusmetrics.PrometheusConfig;
import io.micrometer.prometheusmetrics.PrometheusMeterRegistry;
import java.io.IOException;
import java.net.InetSocketAddress;
import java.util.List;

/**
 * The server the webhook benchmarks measure, configured as {@code kvcache webhook} runs it, and the
 * no-op answer they compare the injection with.
 */
final class BenchServer {
  private BenchServer() {}

  /**
   * A server on a free loopback port answering with {@code reviewer}, which reads only memory: on
   * the event loop, as {@code kvcache webhook} answers what its caches hold.
   */
  static WebhookServer start(TestCertificates.Pair pair, WebhookServer.Reviewer reviewer)
      throws IOException {
    return WebhookServer.builder()
        .address(new InetSocketAddress("127.0.0.1", 0))
        .keys(new ReloadingKeyManager(pair.cert(), pair.key()))
        .reviewer(
            new WebhookServer.Reviewer() {
              @Override
              public JsonNode review(Route route, JsonNode review) {
                return reviewer.review(route, review);
              }

              @Override
              public boolean answersFromMemory() {
                return true;
              }
            })
        .meterRegistry(new PrometheusMeterRegistry(PrometheusConfig.DEFAULT))
        .start();
  }

  /** "Allowed", without reading the object: the least an answer through the server costs. */
  static JsonNode allowed(JsonNode review) {
    return Admission.respond(
        review.path("request").path("uid").asText(), Decision.allow(List.of()));
  }
}
