package ai.gpustack.kvcache.sandbox;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;

/**
 * Events are one store behind two APIs, {@code v1} and {@code events.k8s.io/v1}, as in
 * kube-apiserver: an Event written through either reads through both. This converts between the two
 * shapes, field for field as the API server's conversion does.
 */
final class EventConversion {
  private static final ObjectMapper JSON = new ObjectMapper();

  private EventConversion() {}

  static boolean isEvents(ResourceCatalog.Resource r) {
    return r.plural().equals("events")
        && (r.group().isEmpty() || r.group().equals("events.k8s.io"));
  }

  /** {@code event} in {@code group}'s shape ({@code ""} for core v1). */
  static ObjectNode as(String group, JsonNode event) {
    boolean core = event.path("apiVersion").asText().equals("v1");
    if (group.isEmpty() == core) {
      return (ObjectNode) event;
    }
    return core ? toEventsV1(event) : toCore(event);
  }

  private static ObjectNode toCore(JsonNode e) {
    ObjectNode out = JSON.createObjectNode().put("apiVersion", "v1").put("kind", "Event");
    out.set("metadata", e.path("metadata").deepCopy());
    copy(e, "regarding", out, "involvedObject");
    copy(e, "related", out, "related");
    copy(e, "reason", out, "reason");
    copy(e, "note", out, "message");
    copy(e, "type", out, "type");
    copy(e, "action", out, "action");
    copy(e, "eventTime", out, "eventTime");
    copy(e, "reportingController", out, "reportingComponent");
    copy(e, "reportingInstance", out, "reportingInstance");
    if (e.has("reportingController")) {
      out.putObject("source").put("component", e.get("reportingController").asText());
    }
    copy(e, "deprecatedFirstTimestamp", out, "firstTimestamp");
    copy(e, "deprecatedLastTimestamp", out, "lastTimestamp");
    copy(e, "deprecatedCount", out, "count");
    if (e.has("series")) {
      ObjectNode series = out.putObject("series");
      copy(e.get("series"), "count", series, "count");
      copy(e.get("series"), "lastObservedTime", series, "lastObservedTime");
    }
    return out;
  }

  private static ObjectNode toEventsV1(JsonNode e) {
    ObjectNode out =
        JSON.createObjectNode().put("apiVersion", "events.k8s.io/v1").put("kind", "Event");
    out.set("metadata", e.path("metadata").deepCopy());
    copy(e, "involvedObject", out, "regarding");
    copy(e, "related", out, "related");
    copy(e, "reason", out, "reason");
    copy(e, "message", out, "note");
    copy(e, "type", out, "type");
    copy(e, "action", out, "action");
    copy(e, "eventTime", out, "eventTime");
    if (e.has("reportingComponent")) {
      copy(e, "reportingComponent", out, "reportingController");
    } else if (e.path("source").has("component")) {
      out.put("reportingController", e.path("source").path("component").asText());
    }
    copy(e, "reportingInstance", out, "reportingInstance");
    copy(e, "firstTimestamp", out, "deprecatedFirstTimestamp");
    copy(e, "lastTimestamp", out, "deprecatedLastTimestamp");
    copy(e, "count", out, "deprecatedCount");
    if (e.has("series")) {
      ObjectNode series = out.putObject("series");
      copy(e.get("series"), "count", series, "count");
      copy(e.get("series"), "lastObservedTime", series, "lastObservedTime");
    }
    return out;
  }

  private static void copy(JsonNode from, String field, ObjectNode to, String as) {
    JsonNode v = from.get(field);
    if (v != null && !v.isNull()) {
      to.set(as, v.deepCopy());
    }
  }
}
