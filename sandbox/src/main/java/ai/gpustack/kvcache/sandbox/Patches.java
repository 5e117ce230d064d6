package ai.gpustack.kvcache.sandbox;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.fabric8.zjsonpatch.JsonPatch;

/** The patch types the API server reads, told apart by the request's Content-Type. */
final class Patches {
  private static final ObjectMapper JSON = new ObjectMapper();

  private Patches() {}

  /** Whether {@code contentType} is a JSON merge, JSON or strategic merge patch. */
  static boolean readable(String contentType) {
    // "strategic-merge-patch" contains "merge-patch".
    return contentType.contains("merge-patch") || contentType.contains("json-patch");
  }

  /** {@code base} with {@code patch} applied as {@code contentType} says. */
  static JsonNode apply(String contentType, JsonNode base, JsonNode patch) {
    if (contentType.contains("json-patch")) {
      return JsonPatch.apply(patch, base);
    }
    if (contentType.contains("strategic-merge-patch")) {
      return StrategicMerge.apply(base, patch);
    }
    return merge(base.deepCopy(), patch);
  }

  /** RFC 7386. */
  private static JsonNode merge(JsonNode target, JsonNode patch) {
    if (!patch.isObject()) {
      return patch;
    }
    ObjectNode out = target.isObject() ? (ObjectNode) target : JSON.createObjectNode();
    patch
        .properties()
        .forEach(
            e -> {
              if (e.getValue().isNull()) {
                out.remove(e.getKey());
              } else {
                out.set(
                    e.getKey(),
                    merge(
                        out.path(e.getKey()).isMissingNode()
                            ? JSON.nullNode()
                            : out.get(e.getKey()),
                        e.getValue()));
              }
            });
    return out;
  }
}
