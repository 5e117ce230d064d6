package ai.gpustack.kvcache.engine.vllm;

import ai.gpustack.kvcache.spi.DtypeReport;
import ai.gpustack.kvcache.spi.VersionRange;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/**
 * vLLM's {@code vllm:cache_config_info} on {@code /metrics}: an info gauge whose labels are the
 * CacheConfig's fields, {@code cache_dtype} among them. Read from the Prometheus text format; the
 * first sample wins (one per engine core, all alike). Before 0.14.0 the label holds the {@code
 * --kv-cache-dtype} spelling as given; from 0.14.0 an {@code auto} is resolved from the
 * checkpoint's quantization config before CacheConfig is built, so a replica started with {@code
 * auto} on an FP8-KV checkpoint reports {@code fp8}.
 */
final class CacheConfigMetricReport implements DtypeReport {
  static final String METRIC = "vllm:cache_config_info";

  private final VersionRange versions;
  private final boolean resolvesAuto;
  private final String source;
  private final List<ReportFixture> fixtures;

  CacheConfigMetricReport(
      VersionRange versions, boolean resolvesAuto, String source, List<ReportFixture> fixtures) {
    this.versions = versions;
    this.resolvesAuto = resolvesAuto;
    this.source = source;
    this.fixtures = fixtures;
  }

  @Override
  public VersionRange versions() {
    return versions;
  }

  /**
   * Whether {@code auto} is reported as the spelling it resolves to rather than as {@code auto}.
   */
  boolean resolvesAuto() {
    return resolvesAuto;
  }

  @Override
  public String source() {
    return source;
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
    return fixtures;
  }

  static ReportFixture fixture(String resource, String reports, String source) {
    return new ReportFixture("reports/" + resource, Optional.of(reports), source);
  }
}
