package ai.gpustack.kvcache.operator.render;

import ai.gpustack.kvcache.resources.Keys;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.MapperFeature;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.SerializationFeature;
import com.fasterxml.jackson.databind.json.JsonMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.fabric8.kubernetes.api.model.Pod;
import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.HexFormat;
import java.util.Map;
import java.util.TreeMap;

/**
 * The fingerprint of a rendered Pod: SHA-256 over its labels, annotations (the hash itself left
 * out) and spec as canonical JSON with every object's keys sorted, so it is the same across JVMs,
 * runs and key order.
 */
public final class PodSpecHash {
  private static final ObjectMapper CANONICAL =
      JsonMapper.builder()
          .configure(SerializationFeature.ORDER_MAP_ENTRIES_BY_KEYS, true)
          .configure(MapperFeature.SORT_PROPERTIES_ALPHABETICALLY, true)
          .build();

  private PodSpecHash() {}

  public static String of(Pod pod) {
    ObjectNode input = CANONICAL.createObjectNode();
    input.set("labels", CANONICAL.valueToTree(new TreeMap<>(pod.getMetadata().getLabels())));
    Map<String, String> annotations = new TreeMap<>(pod.getMetadata().getAnnotations());
    annotations.remove(Keys.POD_SPEC_HASH);
    input.set("annotations", CANONICAL.valueToTree(annotations));
    input.set("spec", sorted(CANONICAL.valueToTree(pod.getSpec())));
    try {
      byte[] digest =
          MessageDigest.getInstance("SHA-256")
              .digest(CANONICAL.writeValueAsString(sorted(input)).getBytes(StandardCharsets.UTF_8));
      return HexFormat.of().formatHex(digest, 0, 10);
    } catch (NoSuchAlgorithmException | com.fasterxml.jackson.core.JsonProcessingException e) {
      throw new IllegalStateException(e);
    }
  }

  /** A copy with every object's fields in key order. */
  private static JsonNode sorted(JsonNode node) {
    if (node.isObject()) {
      ObjectNode out = CANONICAL.createObjectNode();
      TreeMap<String, JsonNode> fields = new TreeMap<>();
      node.properties().forEach(e -> fields.put(e.getKey(), sorted(e.getValue())));
      fields.forEach(out::set);
      return out;
    }
    if (node.isArray()) {
      var out = CANONICAL.createArrayNode();
      node.forEach(n -> out.add(sorted(n)));
      return out;
    }
    return node;
  }
}
