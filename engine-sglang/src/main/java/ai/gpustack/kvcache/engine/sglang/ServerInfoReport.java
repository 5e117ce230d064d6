package ai.gpustack.kvcache.engine.sglang;

import ai.gpustack.kvcache.spi.DtypeReport;
import ai.gpustack.kvcache.spi.VersionRange;
import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.util.List;
import java.util.Optional;

/**
 * SGLang's server-info answer: {@code dataclasses.asdict(server_args)} merged flat with the
 * scheduler's info, so {@code kv_cache_dtype} is a top-level key. From v0.4.6.post4 an {@code
 * internal_states} list carries each data-parallel rank's view, which in some releases holds the
 * dtype the scheduler resolved (an FP8 checkpoint's {@code auto} read as {@code fp8_e4m3}); it is
 * preferred where present.
 */
final class ServerInfoReport implements DtypeReport {
  private static final ObjectMapper JSON = new ObjectMapper();
  private static final String KEY = "kv_cache_dtype";

  private final VersionRange versions;
  private final String path;
  private final boolean internalStates;
  private final String source;
  private final List<ReportFixture> fixtures;

  ServerInfoReport(
      VersionRange versions,
      String path,
      boolean internalStates,
      String source,
      List<ReportFixture> fixtures) {
    this.versions = versions;
    this.path = path;
    this.internalStates = internalStates;
    this.source = source;
    this.fixtures = fixtures;
  }

  @Override
  public VersionRange versions() {
    return versions;
  }

  @Override
  public String source() {
    return source;
  }

  @Override
  public String path() {
    return path;
  }

  @Override
  public Optional<String> read(String body) {
    JsonNode root;
    try {
      root = JSON.readTree(body);
    } catch (JsonProcessingException e) {
      return Optional.empty();
    }
    if (root == null || !root.isObject()) {
      return Optional.empty();
    }
    for (JsonNode state : root.path("internal_states")) {
      JsonNode dtype = state.path(KEY);
      if (dtype.isTextual() && !dtype.asText().isEmpty()) {
        return Optional.of(dtype.asText());
      }
    }
    JsonNode dtype = root.path(KEY);
    return dtype.isTextual() && !dtype.asText().isEmpty()
        ? Optional.of(dtype.asText())
        : Optional.empty();
  }

  @Override
  public String sample(String spelling) {
    ObjectNode root = JSON.createObjectNode();
    root.put("model_path", "org/model").put("dtype", "auto").put(KEY, spelling);
    root.put("host", "0.0.0.0").put("port", 30000).put("tp_size", 1).put("dp_size", 1);
    if (!path.equals("/get_server_args")) {
      root.put("status", "ready").put("max_total_num_tokens", 440000);
    }
    if (internalStates) {
      root.putArray("internal_states")
          .addObject()
          .put("model_path", "org/model")
          .put(KEY, spelling)
          .put("port", 30000)
          .put("last_gen_throughput", 0.0);
    }
    return root.toString();
  }

  @Override
  public List<ReportFixture> fixtures() {
    return fixtures;
  }
}
