package ai.gpustack.kvcache.webhook;

import ai.gpustack.kvcache.admission.Route;
import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.Timer;
import java.time.Duration;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;

/**
 * What the webhook counts: {@code kvcache_admission_requests_total{handler,verdict}} and the
 * latency histogram {@code kvcache_admission_duration_seconds{handler}}.
 */
final class WebhookMetrics {
  private final MeterRegistry registry;

  // Registering looks a meter up by its id (name and sorted tags) on every call, each review; so
  // each meter is registered once, then reused.
  private final Map<String, Counter> counters = new ConcurrentHashMap<>();
  private final Map<String, Timer> timers = new ConcurrentHashMap<>();

  WebhookMetrics(MeterRegistry registry) {
    this.registry = registry;
  }

  /**
   * verdict: allowed, patched, denied, error (a rule failed: a bug, logged with its stack), or
   * rejected (a 4xx before any rule ran). The {@code handler} label names the route.
   */
  void record(String handler, String verdict, long nanos) {
    counters
        .computeIfAbsent(
            handler + '\0' + verdict,
            k ->
                Counter.builder("kvcache.admission.requests")
                    .description("Admission reviews answered, by handler and verdict")
                    .tag("handler", handler)
                    .tag("verdict", verdict)
                    .register(registry))
        .increment();
    timers
        .computeIfAbsent(
            handler,
            k ->
                Timer.builder("kvcache.admission.duration")
                    .description("Time to answer an admission review")
                    .tag("handler", handler)
                    .publishPercentileHistogram()
                    .minimumExpectedValue(Duration.ofNanos(50_000))
                    .maximumExpectedValue(Duration.ofSeconds(10))
                    .register(registry))
        .record(nanos, TimeUnit.NANOSECONDS);
  }

  static String name(Route route) {
    return route.name().toLowerCase(java.util.Locale.ROOT);
  }
}
