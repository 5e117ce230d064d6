package ai.gpustack.kvcache.sandbox;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.util.ArrayList;
import java.util.List;

/**
 * Server-side tables, as {@code kubectl get} asks for them: the CRDs' printer columns, and the
 * usual columns of Pods and Deployments. Date columns go out as ages, as the API server writes
 * them.
 */
final class Tables {
  private static final ObjectMapper JSON = new ObjectMapper();

  private Tables() {}

  /** {@code listOrObject} as the Table {@code kubectl get} asks for: one row per object. */
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
    if (EventConversion.isEvents(resource)) {
      return events(table, columns, items);
    }
    column(columns, "Name", "string", "name");
    columns(resource, columns);
    ArrayNode rows = table.putArray("rows");
    for (JsonNode item : items) {
      ObjectNode row = rows.addObject();
      ArrayNode cells = row.putArray("cells");
      cells.add(item.path("metadata").path("name").asText());
      cells(resource, item, cells);
      row.set("object", partial(item));
    }
    return table;
  }

  /** The columns after Name: the CRD's printer columns, or those kubectl shows for a kind. */
  private static void columns(ResourceCatalog.Resource resource, ArrayNode columns) {
    List<JsonNode> printer = resource.printerColumns();
    if (resource.kind().equals("Pod")) {
      column(columns, "Ready", "string", "");
      column(columns, "Status", "string", "");
      column(columns, "Restarts", "integer", "");
      column(columns, "Age", "string", "");
    } else if (resource.kind().equals("Deployment")) {
      column(columns, "Ready", "string", "");
      column(columns, "Up-to-date", "integer", "");
      column(columns, "Available", "integer", "");
      column(columns, "Age", "string", "");
      column(columns, "Containers", "string", "", 1);
      column(columns, "Images", "string", "", 1);
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
  }

  /** {@code item}'s cells after its name, one per column {@link #columns} wrote. */
  private static void cells(ResourceCatalog.Resource resource, JsonNode item, ArrayNode cells) {
    List<JsonNode> printer = resource.printerColumns();
    if (resource.kind().equals("Pod")) {
      podCells(item, cells);
    } else if (resource.kind().equals("Deployment")) {
      deploymentCells(item, cells);
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
  }

  private static void podCells(JsonNode pod, ArrayNode cells) {
    long ready = 0;
    for (JsonNode c : pod.path("status").path("conditions")) {
      if (c.path("type").asText().equals("Ready") && c.path("status").asText().equals("True")) {
        ready = pod.path("spec").path("containers").size();
      }
    }
    cells.add(ready + "/" + pod.path("spec").path("containers").size());
    cells.add(
        pod.path("metadata").has("deletionTimestamp")
            ? "Terminating"
            : pod.path("status").path("phase").asText("Pending"));
    cells.add(0);
    cells.add(age(pod.path("metadata").path("creationTimestamp").asText("")));
  }

  private static void deploymentCells(JsonNode deployment, ArrayNode cells) {
    JsonNode status = deployment.path("status");
    cells.add(
        status.path("readyReplicas").asInt()
            + "/"
            + deployment.path("spec").path("replicas").asInt(1));
    cells.add(status.path("updatedReplicas").asInt());
    cells.add(status.path("availableReplicas").asInt());
    cells.add(age(deployment.path("metadata").path("creationTimestamp").asText("")));
    List<String> names = new ArrayList<>();
    List<String> images = new ArrayList<>();
    for (JsonNode c : deployment.path("spec").path("template").path("spec").path("containers")) {
      names.add(c.path("name").asText());
      images.add(c.path("image").asText());
    }
    cells.add(String.join(",", names));
    cells.add(String.join(",", images));
  }

  /**
   * Core Events as kube-apiserver prints them (pkg/printers): all ten columns, the priority-1 ones
   * shown by {@code kubectl get -o wide} only.
   */
  private static JsonNode events(ObjectNode table, ArrayNode columns, List<JsonNode> items) {
    column(columns, "Last Seen", "string", "", 0);
    column(columns, "Type", "string", "", 0);
    column(columns, "Reason", "string", "", 0);
    column(columns, "Object", "string", "", 0);
    column(columns, "Subobject", "string", "", 1);
    column(columns, "Source", "string", "", 1);
    column(columns, "Message", "string", "", 0);
    column(columns, "First Seen", "string", "", 1);
    column(columns, "Count", "string", "", 1);
    column(columns, "Name", "string", "name", 1);
    ArrayNode rows = table.putArray("rows");
    for (JsonNode raw : items) {
      JsonNode e = EventConversion.as("", raw);
      String first = e.path("firstTimestamp").asText(e.path("eventTime").asText(""));
      String last =
          e.path("series").has("lastObservedTime")
              ? e.path("series").path("lastObservedTime").asText()
              : e.path("lastTimestamp").asText(first);
      JsonNode involved = e.path("involvedObject");
      String kind = involved.path("kind").asText("").toLowerCase(java.util.Locale.ROOT);
      String name = involved.path("name").asText("");
      String component =
          e.path("source").path("component").asText(e.path("reportingComponent").asText(""));
      String host = e.path("source").path("host").asText(e.path("reportingInstance").asText(""));
      long count =
          e.path("series").has("count")
              ? e.path("series").path("count").asLong()
              : e.path("count").asLong(1);
      ArrayNode cells = rows.addObject().putArray("cells");
      cells.add(age(last));
      cells.add(e.path("type").asText(""));
      cells.add(e.path("reason").asText(""));
      cells.add(name.isEmpty() ? kind : kind + "/" + name);
      cells.add(involved.path("fieldPath").asText(""));
      cells.add(host.isEmpty() ? component : component + ", " + host);
      cells.add(e.path("message").asText("").trim());
      cells.add(age(first));
      cells.add(count == 0 ? 1 : count);
      cells.add(e.path("metadata").path("name").asText(""));
      ((ObjectNode) rows.get(rows.size() - 1)).set("object", partial(e));
    }
    return table;
  }

  /** A row's object as the API server sends it by default: the metadata only. */
  private static JsonNode partial(JsonNode item) {
    ObjectNode o =
        JSON.createObjectNode()
            .put("kind", "PartialObjectMetadata")
            .put("apiVersion", "meta.k8s.io/v1");
    o.set("metadata", item.path("metadata").deepCopy());
    return o;
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
    column(columns, name, type, format, 0);
  }

  private static void column(
      ArrayNode columns, String name, String type, String format, int priority) {
    columns
        .addObject()
        .put("name", name)
        .put("type", type)
        .put("format", format)
        .put("description", "")
        .put("priority", priority);
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
