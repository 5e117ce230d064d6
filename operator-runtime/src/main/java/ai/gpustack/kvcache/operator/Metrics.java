package ai.gpustack.kvcache.operator;

import io.micrometer.core.instrument.binder.jvm.JvmGcMetrics;
import io.micrometer.core.instrument.binder.jvm.JvmMemoryMetrics;
import io.micrometer.core.instrument.binder.jvm.JvmThreadMetrics;
import io.micrometer.core.instrument.binder.system.ProcessorMetrics;
import io.micrometer.core.instrument.binder.system.UptimeMetrics;
import io.micrometer.prometheusmetrics.PrometheusConfig;
import io.micrometer.prometheusmetrics.PrometheusMeterRegistry;

/** The one registry a {@code kvcache} process exposes on {@code /metrics}. */
public final class Metrics {
  private Metrics() {}

  /**
   * A Prometheus registry with the JVM's memory, GC, threads, CPU and uptime bound: what the
   * dashboard under {@code examples/grafana} reads beside the operator's and webhook's own.
   */
  @SuppressWarnings("resource") // the GC listener lives as long as the process
  public static PrometheusMeterRegistry registry() {
    PrometheusMeterRegistry registry = new PrometheusMeterRegistry(PrometheusConfig.DEFAULT);
    new JvmMemoryMetrics().bindTo(registry);
    new JvmGcMetrics().bindTo(registry);
    new JvmThreadMetrics().bindTo(registry);
    new ProcessorMetrics().bindTo(registry);
    new UptimeMetrics().bindTo(registry);
    return registry;
  }
}
