package ai.gpustack.kvcache.engine.vllm;

import ai.gpustack.kvcache.spi.DtypeReport;
import ai.gpustack.kvcache.spi.VersionRange;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/**
 * vLLM's {@code vllm:cache_config_info} on {@code /metrics}: an info gauge whose labels are the
 * CacheConfig's fields, {@code cache_dtype} among them, holding the {@code --kv-cache-dtype}
 * spelling as given. Read from the Prometheus text format; the first sample wins (one per engine
 * core, all alike).
 */
final class CacheConfigMetricReport implements DtypeReport {
  static final String METRIC = "vllm:cache_config_info";

  @Override
  public VersionRange versions() {
    return VersionRange.of("0.3.3", null);
  }

  @Override
  public String source() {
    return "vllm-project/vllm PR #3100 (first in v0.3.3: vllm/engine/metrics.py, an Info named"
        + " vllm:cache_config); a gauge named vllm:cache_config_info from v0.5.5 (PR #7279) and in"
        + " the V1 engine's vllm/v1/metrics/loggers.py (PR #13299, an engine label from PR #15755);"
        + " served on the API port";
  }

  @Override
  public String path() {
    return "/metrics";
  }

  @Override
  public Optional<String> read(String body) {
    int at = 0;
    while (at < body.length()) {
      int end = body.indexOf('\n', at);
      if (end < 0) {
        end = body.length();
      }
      if (body.startsWith(METRIC + "{", at)) {
        Optional<String> dtype =
            labels(body.substring(at + METRIC.length() + 1, end))
                .map(l -> l.get("cache_dtype"))
                .filter(d -> !d.isEmpty());
        if (dtype.isPresent()) {
          return dtype;
        }
      }
      at = end + 1;
    }
    return Optional.empty();
  }

  /** The labels of one sample, {@code name="value",...}, up to the closing brace. */
  private static Optional<Map<String, String>> labels(String text) {
    Map<String, String> labels = new LinkedHashMap<>();
    int i = 0;
    while (i < text.length() && text.charAt(i) != '}') {
      int eq = text.indexOf("=\"", i);
      if (eq < 0) {
        return Optional.empty();
      }
      String name = text.substring(i, eq);
      StringBuilder value = new StringBuilder();
      int j = eq + 2;
      for (; j < text.length() && text.charAt(j) != '"'; j++) {
        char c = text.charAt(j);
        if (c == '\\' && j + 1 < text.length()) {
          char next = text.charAt(++j);
          value.append(next == 'n' ? '\n' : next);
        } else {
          value.append(c);
        }
      }
      if (j >= text.length()) {
        return Optional.empty();
      }
      labels.put(name, value.toString());
      i = j + 1;
      if (i < text.length() && text.charAt(i) == ',') {
        i++;
      }
    }
    return i < text.length() ? Optional.of(labels) : Optional.empty();
  }

  @Override
  public String sample(String spelling) {
    return "# HELP vllm:num_requests_running Number of requests in model execution batches.\n"
        + "# TYPE vllm:num_requests_running gauge\n"
        + "vllm:num_requests_running{engine=\"0\",model_name=\"org/model\"} 0.0\n"
        + "# HELP "
        + METRIC
        + " Information of the LLMEngine CacheConfig\n"
        + "# TYPE "
        + METRIC
        + " gauge\n"
        + METRIC
        + "{block_size=\"16\",cache_dtype=\""
        + spelling.replace("\\", "\\\\").replace("\"", "\\\"")
        + "\",enable_prefix_caching=\"True\",engine=\"0\",gpu_memory_utilization=\"0.9\","
        + "num_gpu_blocks=\"24188\"} 1.0\n";
  }

  @Override
  public List<ReportFixture> fixtures() {
    return List.of(
        fixture(
            "metrics-v0.3.3.txt",
            "auto",
            "PR #3100's curl of /metrics (v0.3.3 era); HELP and TYPE lines as prometheus_client"
                + " writes that Info"),
        fixture(
            "metrics-v0.5.5-era.txt",
            "fp8_e5m2",
            "a V0 engine of the 0.5.5 to 0.6 era (field set of that era), captured in a"
                + " third-party test fixture"),
        fixture(
            "metrics-2026-v1.txt",
            "auto",
            "curl of /metrics from a 2026 V1 build (post PR #42206 labels), an NVIDIA NIM"
                + " container transcript"),
        fixture(
            "metrics-v0.30.0.txt",
            "auto",
            "vLLM 0.30.0 (OpenVINO build, trimmed of unrelated labels), a third-party test"),
        new ReportFixture(
            "reports/metrics-without-cache-config.txt",
            Optional.empty(),
            "a /metrics answer without the info gauge (as before v0.3.3)"));
  }

  private static ReportFixture fixture(String resource, String reports, String source) {
    return new ReportFixture("reports/" + resource, Optional.of(reports), source);
  }
}
