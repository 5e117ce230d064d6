package ai.gpustack.kvcache.sandbox;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.util.ArrayList;
import java.util.List;

/**
 * Server-side tables, as {@code kubectl get} asks for them: the CRDs' printer columns, and the
 * usual columns of Pods. Date columns go out as ages, as the API server writes them.
 */
final class Tables {
  private static final ObjectMapper JSON = new ObjectMapper();

  private Tables() {}

  static JsonNode table(ResourceCatalog.Resource resource, JsonNode listOrObject) {
    List<JsonNode> items = new ArrayList<>();
    if (listOrObject.has("items")) {
      listOrObject.get("items").forEach(items::add);
    } else {
      items.add(listOrObject);
    }
    ObjectNode table =
        JSON.createObjectNode().put("kind", "Table").put("apiVersion", "meta.k8s.io/v1");
    table
        .putObject("metadata")
        .put("resourceVersion", listOrObject.path("metadata").path("resourceVersion").asText(""));
    ArrayNode columns = table.putArray("columnDefinitions");
    column(columns, "Name", "string", "name");
    List<JsonNode> printer = resource.printerColumns();
    if (resource.kind().equals("Pod")) {
      column(columns, "Ready", "string", "");
      column(columns, "Status", "string", "");
      column(columns, "Restarts", "integer", "");
      column(columns, "Age", "string", "");
    } else if (printer.isEmpty()) {
      column(columns, "Age", "string", "");
    } else {
      printer.forEach(
          c ->
              column(
                  columns,
                  c.path("name").asText(),
                  c.path("type").asText("string"),
                  c.path("format").asText("")));
    }
    ArrayNode rows = table.putArray("rows");
    for (JsonNode item : items) {
      ObjectNode row = rows.addObject();
      ArrayNode cells = row.putArray("cells");
      cells.add(item.path("metadata").path("name").asText());
      if (resource.kind().equals("Pod")) {
        long ready = 0;
        for (JsonNode c : item.path("status").path("conditions")) {
          if (c.path("type").asText().equals("Ready") && c.path("status").asText().equals("True")) {
            ready = item.path("spec").path("containers").size();
          }
        }
        cells.add(ready + "/" + item.path("spec").path("containers").size());
        cells.add(
            item.path("metadata").has("deletionTimestamp")
                ? "Terminating"
                : item.path("status").path("phase").asText("Pending"));
        cells.add(0);
        cells.add(age(item.path("metadata").path("creationTimestamp").asText("")));
      } else if (printer.isEmpty()) {
        cells.add(age(item.path("metadata").path("creationTimestamp").asText("")));
      } else {
        printer.forEach(
            c -> {
              JsonNode value = at(item, c.path("jsonPath").asText());
              cells.add(
                  c.path("type").asText().equals("date")
                      ? JSON.getNodeFactory().textNode(age(value.asText("")))
                      : value);
            });
      }
      row.set("object", item);
    }
    return table;
  }

  /** A timestamp as the API server shows a date column: the age, like {@code 5m2s}. */
  static String age(String timestamp) {
    if (timestamp.isEmpty()) {
      return "<unknown>";
    }
    long s;
    try {
      s =
          java.time.Duration.between(java.time.Instant.parse(timestamp), java.time.Instant.now())
              .getSeconds();
    } catch (java.time.format.DateTimeParseException e) {
      return "<invalid>";
    }
    if (s < 0) {
      return "0s";
    }
    long m = s / 60;
    long h = m / 60;
    long d = h / 24;
    if (s < 120) {
      return s + "s";
    }
    if (m < 10) {
      return s % 60 == 0 ? m + "m" : m + "m" + (s % 60) + "s";
    }
    if (m < 180) {
      return m + "m";
    }
    if (h < 8) {
      return m % 60 == 0 ? h + "h" : h + "h" + (m % 60) + "m";
    }
    if (h < 48) {
      return h + "h";
    }
    if (h < 24 * 8) {
      return h % 24 == 0 ? d + "d" : d + "d" + (h % 24) + "h";
    }
    if (d < 365 * 2) {
      return d + "d";
    }
    return (d / 365) + "y" + (d % 365 == 0 ? "" : (d % 365) + "d");
  }

  private static void column(ArrayNode columns, String name, String type, String format) {
    columns
        .addObject()
        .put("name", name)
        .put("type", type)
        .put("format", format)
        .put("description", "")
        .put("priority", 0);
  }

  /** The value at a simple JSONPath ({@code .spec.backends[0]}); null when absent. */
  static JsonNode at(JsonNode item, String path) {
    JsonNode node = item;
    for (String part : path.replaceFirst("^\\.", "").split("\\.")) {
      String field = part.contains("[") ? part.substring(0, part.indexOf('[')) : part;
      node = node.path(field);
      if (part.contains("[")) {
        node =
            node.path(Integer.parseInt(part.substring(part.indexOf('[') + 1, part.indexOf(']'))));
      }
    }
    return node.isMissingNode() ? JSON.nullNode() : node;
  }
}
