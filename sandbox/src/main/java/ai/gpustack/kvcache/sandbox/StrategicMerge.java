package ai.gpustack.kvcache.sandbox;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * A strategic merge patch on a built-in kind, as the API server applies one: lists with a merge key
 * (containers and env by name, ports by containerPort, ...) merge element by element, finalizers
 * merge as a set, other lists are replaced; {@code null} deletes; the directives kubectl sends
 * ({@code $patch}, {@code $setElementOrder/}, {@code $retainKeys}, {@code
 * $deleteFromPrimitiveList/}) are honoured. Custom resources take no strategic merge patch.
 */
final class StrategicMerge {
  private static final JsonNodeFactory NODES = JsonNodeFactory.instance;
  private static final String ORDER = "$setElementOrder/";
  private static final String DELETE_PRIMITIVE = "$deleteFromPrimitiveList/";

  /** The merge key of each list the built-in kinds merge by key, by the list's field name. */
  private static final Map<String, String> MERGE_KEYS =
      Map.ofEntries(
          Map.entry("containers", "name"),
          Map.entry("initContainers", "name"),
          Map.entry("ephemeralContainers", "name"),
          Map.entry("env", "name"),
          Map.entry("volumes", "name"),
          Map.entry("volumeMounts", "mountPath"),
          Map.entry("volumeDevices", "devicePath"),
          Map.entry("ports", "containerPort"),
          Map.entry("imagePullSecrets", "name"),
          Map.entry("ownerReferences", "uid"),
          Map.entry("conditions", "type"),
          Map.entry("hostAliases", "ip"));

  /** Lists of strings merged as sets. */
  private static final Set<String> MERGED_PRIMITIVES = Set.of("finalizers");

  private StrategicMerge() {}

  /** {@code original} with {@code patch} applied; neither is changed. */
  static JsonNode apply(JsonNode original, JsonNode patch) {
    JsonNode merged = merge(original == null ? null : original.deepCopy(), patch);
    return merged == null ? NODES.objectNode() : merged;
  }

  private static JsonNode merge(JsonNode target, JsonNode patch) {
    if (!patch.isObject()) {
      return patch.deepCopy();
    }
    String directive = patch.path("$patch").asText("");
    if (directive.equals("delete")) {
      return null;
    }
    ObjectNode out =
        directive.equals("replace") || target == null || !target.isObject()
            ? NODES.objectNode()
            : (ObjectNode) target;
    Map<String, JsonNode> orders = new HashMap<>();
    for (Map.Entry<String, JsonNode> e : patch.properties()) {
      String key = e.getKey();
      JsonNode value = e.getValue();
      if (key.equals("$patch") || key.equals("$retainKeys")) {
        continue;
      }
      if (key.startsWith(ORDER)) {
        orders.put(key.substring(ORDER.length()), value);
        continue;
      }
      if (key.startsWith(DELETE_PRIMITIVE)) {
        deleteFromPrimitiveList(out, key.substring(DELETE_PRIMITIVE.length()), value);
        continue;
      }
      if (value.isNull()) {
        out.remove(key);
      } else if (value.isObject()) {
        JsonNode merged = merge(out.get(key), value);
        if (merged == null) {
          out.remove(key);
        } else {
          out.set(key, merged);
        }
      } else if (value.isArray()) {
        out.set(key, list(key, out.get(key), (ArrayNode) value));
      } else {
        out.set(key, value.deepCopy());
      }
    }
    orders.forEach((field, order) -> reorder(out, field, order));
    if (patch.has("$retainKeys")) {
      retainKeys(out, patch.get("$retainKeys"));
    }
    return out;
  }

  /** Drops {@code values} from the list {@code field}, if it is one. */
  private static void deleteFromPrimitiveList(ObjectNode out, String field, JsonNode values) {
    if (out.get(field) instanceof ArrayNode list) {
      Set<JsonNode> gone = new LinkedHashSet<>();
      values.forEach(gone::add);
      ArrayNode kept = NODES.arrayNode();
      list.forEach(
          v -> {
            if (!gone.contains(v)) {
              kept.add(v);
            }
          });
      out.set(field, kept);
    }
  }

  /** Keeps only the fields the {@code $retainKeys} directive names. */
  private static void retainKeys(ObjectNode out, JsonNode retained) {
    Set<String> keep = new LinkedHashSet<>();
    retained.forEach(k -> keep.add(k.asText()));
    out.retain(keep);
  }

  private static ArrayNode list(String field, JsonNode current, ArrayNode patch) {
    String key = MERGE_KEYS.get(field);
    ArrayNode existing = current instanceof ArrayNode a ? a : NODES.arrayNode();
    if (key != null && allObjects(patch)) {
      List<JsonNode> out = new ArrayList<>();
      existing.forEach(out::add);
      for (JsonNode element : patch) {
        JsonNode id = element.get(key);
        int at = indexOf(out, key, id);
        if (element.path("$patch").asText("").equals("delete")) {
          if (at >= 0) {
            out.remove(at);
          }
        } else if (at >= 0) {
          JsonNode merged = merge(out.get(at), element);
          if (merged == null) {
            out.remove(at);
          } else {
            out.set(at, merged);
          }
        } else {
          JsonNode added = merge(null, element);
          if (added != null) {
            out.add(added);
          }
        }
      }
      ArrayNode result = NODES.arrayNode();
      out.forEach(result::add);
      return result;
    }
    if (MERGED_PRIMITIVES.contains(field)) {
      Set<JsonNode> union = new LinkedHashSet<>();
      existing.forEach(union::add);
      patch.forEach(union::add);
      ArrayNode result = NODES.arrayNode();
      union.forEach(result::add);
      return result;
    }
    return patch.deepCopy();
  }

  private static void reorder(ObjectNode out, String field, JsonNode order) {
    if (!(out.get(field) instanceof ArrayNode list)) {
      return;
    }
    String key = MERGE_KEYS.get(field);
    List<JsonNode> rest = new ArrayList<>();
    list.forEach(rest::add);
    ArrayNode ordered = NODES.arrayNode();
    for (JsonNode o : order) {
      JsonNode id = key != null && o.isObject() ? o.get(key) : o;
      for (int i = 0; i < rest.size(); i++) {
        JsonNode candidate =
            key != null && rest.get(i).isObject() ? rest.get(i).get(key) : rest.get(i);
        if (id != null && id.equals(candidate)) {
          ordered.add(rest.remove(i));
          break;
        }
      }
    }
    rest.forEach(ordered::add);
    out.set(field, ordered);
  }

  private static boolean allObjects(ArrayNode list) {
    for (JsonNode n : list) {
      if (!n.isObject()) {
        return false;
      }
    }
    return true;
  }

  private static int indexOf(List<JsonNode> list, String key, JsonNode id) {
    for (int i = 0; i < list.size(); i++) {
      if (id != null && id.equals(list.get(i).get(key))) {
        return i;
      }
    }
    return -1;
  }
}
