package ai.gpustack.kvcache.sandbox;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.util.ArrayList;
import java.util.Iterator;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.regex.Pattern;

/**
 * What the API server does with a custom resource against its CRD's structural schema: unknown
 * fields are found and pruned (reported per {@code fieldValidation}), null values dropped, and
 * types, required fields, enums, bounds, lengths, patterns and the CEL rules checked, each
 * violation worded as the API server words it. Pure; not thread-safe on one object.
 */
final class SchemaCheck {
  private static final Set<String> OBJECT_META =
      Set.of(
          "name",
          "generateName",
          "namespace",
          "selfLink",
          "uid",
          "resourceVersion",
          "generation",
          "creationTimestamp",
          "deletionTimestamp",
          "deletionGracePeriodSeconds",
          "labels",
          "annotations",
          "ownerReferences",
          "finalizers",
          "managedFields");

  /** What one object came to: the fields pruned and the violations found. */
  record Result(List<String> unknown, List<Statuses.Cause> violations) {}

  private final List<String> unknown = new ArrayList<>();
  private final List<Statuses.Cause> violations = new ArrayList<>();

  private SchemaCheck() {}

  /**
   * Checks {@code object} (pruned in place) against {@code schema}, with {@code old} the stored
   * object on an update (for the CEL transition rules), or null on a create.
   */
  static Result check(JsonNode schema, ObjectNode object, JsonNode old) {
    SchemaCheck check = new SchemaCheck();
    ObjectNode root = (ObjectNode) schema;
    Iterator<Map.Entry<String, JsonNode>> fields = object.properties().iterator();
    while (fields.hasNext()) {
      Map.Entry<String, JsonNode> f = fields.next();
      String name = f.getKey();
      if (name.equals("apiVersion") || name.equals("kind")) {
        continue;
      }
      if (name.equals("status")) {
        // Written through the status subresource, which this check does not cover.
        continue;
      }
      if (name.equals("metadata")) {
        check.metadata(f.getValue());
        continue;
      }
      JsonNode property = root.path("properties").path(name);
      if (property.isMissingNode()) {
        check.unknown.add(name);
        fields.remove();
      } else if (f.getValue().isNull()) {
        fields.remove();
      } else {
        check.node(property, f.getValue(), old == null ? null : old.get(name), name);
      }
    }
    check.required(root, object, "");
    check.rules(root, object, old, "");
    return new Result(List.copyOf(check.unknown), List.copyOf(check.violations));
  }

  private void metadata(JsonNode meta) {
    if (!meta.isObject()) {
      return;
    }
    Iterator<String> names = meta.fieldNames();
    while (names.hasNext()) {
      String name = names.next();
      if (!OBJECT_META.contains(name)) {
        unknown.add("metadata." + name);
        names.remove();
      }
    }
  }

  private void node(JsonNode schema, JsonNode value, JsonNode old, String path) {
    String type = schema.path("type").asText("");
    if (!type.isEmpty() && !typeMatches(type, value)) {
      violations.add(
          new Statuses.Cause(
              "FieldValueTypeInvalid",
              path,
              "Invalid value: \""
                  + jsonType(value)
                  + "\": "
                  + path
                  + " in body must be of type "
                  + type
                  + ": \""
                  + jsonType(value)
                  + "\""));
      return;
    }
    if (value.isObject()) {
      object(schema, (ObjectNode) value, old, path);
    } else if (value.isArray()) {
      array(schema, (ArrayNode) value, old, path);
    } else {
      scalar(schema, value, path);
    }
    rules(schema, value, old, path);
  }

  private void object(JsonNode schema, ObjectNode value, JsonNode old, String path) {
    boolean preserve = schema.path("x-kubernetes-preserve-unknown-fields").asBoolean(false);
    JsonNode additional = schema.get("additionalProperties");
    Iterator<Map.Entry<String, JsonNode>> fields = value.properties().iterator();
    while (fields.hasNext()) {
      Map.Entry<String, JsonNode> f = fields.next();
      String child = path + "." + f.getKey();
      JsonNode property = schema.path("properties").path(f.getKey());
      if (property.isMissingNode() && additional != null && additional.isObject()) {
        property = additional;
      }
      if (property.isMissingNode()) {
        if (!preserve) {
          unknown.add(child);
          fields.remove();
        }
      } else if (f.getValue().isNull()) {
        fields.remove();
      } else {
        node(property, f.getValue(), old == null ? null : old.get(f.getKey()), child);
      }
    }
    schema
        .path("properties")
        .properties()
        .forEach(
            p -> {
              if (!value.has(p.getKey()) && p.getValue().has("default")) {
                value.set(p.getKey(), p.getValue().get("default").deepCopy());
              }
            });
    required(schema, value, path);
  }

  private void required(JsonNode schema, JsonNode value, String path) {
    for (JsonNode r : schema.path("required")) {
      if (!value.has(r.asText())) {
        String field = path.isEmpty() ? r.asText() : path + "." + r.asText();
        violations.add(new Statuses.Cause("FieldValueRequired", field, "Required value"));
      }
    }
  }

  private void array(JsonNode schema, ArrayNode value, JsonNode old, String path) {
    JsonNode items = schema.path("items");
    for (int i = 0; i < value.size(); i++) {
      if (!items.isMissingNode() && !value.get(i).isNull()) {
        // Items of a list that is not a map have no old self to compare with.
        node(items, value.get(i), null, path + "[" + i + "]");
      }
    }
    if (schema.has("maxItems") && value.size() > schema.get("maxItems").asInt()) {
      violations.add(
          new Statuses.Cause(
              "FieldValueTooMany",
              path,
              "Too many: "
                  + value.size()
                  + ": must have at most "
                  + schema.get("maxItems").asInt()
                  + " items"));
    }
    if (schema.has("minItems") && value.size() < schema.get("minItems").asInt()) {
      invalid(
          path,
          String.valueOf(value.size()),
          "should have at least " + schema.get("minItems").asInt() + " items");
    }
  }

  private void scalar(JsonNode schema, JsonNode value, String path) {
    String shown = value.isTextual() ? "\"" + value.asText() + "\"" : value.toString();
    if (schema.has("enum")) {
      boolean listed = false;
      List<String> allowed = new ArrayList<>();
      for (JsonNode e : schema.get("enum")) {
        listed |= e.equals(value);
        allowed.add(e.isTextual() ? "\"" + e.asText() + "\"" : e.toString());
      }
      if (!listed) {
        violations.add(
            new Statuses.Cause(
                "FieldValueNotSupported",
                path,
                "Unsupported value: "
                    + shown
                    + ": supported values: "
                    + String.join(", ", allowed)));
      }
    }
    if (value.isNumber()) {
      if (schema.has("minimum") && value.asDouble() < schema.get("minimum").asDouble()) {
        invalid(
            path, shown, "should be greater than or equal to " + schema.get("minimum").asText());
      }
      if (schema.has("maximum") && value.asDouble() > schema.get("maximum").asDouble()) {
        invalid(path, shown, "should be less than or equal to " + schema.get("maximum").asText());
      }
    }
    if (value.isTextual()) {
      String s = value.asText();
      if (schema.has("maxLength") && s.length() > schema.get("maxLength").asInt()) {
        violations.add(
            new Statuses.Cause(
                "FieldValueTooLong",
                path,
                "Too long: may not be more than " + schema.get("maxLength").asInt() + " bytes"));
      }
      if (schema.has("minLength") && s.length() < schema.get("minLength").asInt()) {
        invalid(
            path, shown, "should be at least " + schema.get("minLength").asInt() + " chars long");
      }
      if (schema.has("pattern")
          && !Pattern.compile(schema.get("pattern").asText()).matcher(s).find()) {
        invalid(path, shown, "should match '" + schema.get("pattern").asText() + "'");
      }
    }
  }

  /** A bound the API server words as "Invalid value: V: PATH in body should ...". */
  private void invalid(String path, String shown, String should) {
    violations.add(
        new Statuses.Cause(
            "FieldValueInvalid",
            path,
            "Invalid value: " + shown + ": " + path + " in body " + should));
  }

  private void rules(JsonNode schema, JsonNode value, JsonNode old, String path) {
    for (JsonNode v : schema.path("x-kubernetes-validations")) {
      String rule = v.path("rule").asText();
      boolean transition = Cel.transition(rule);
      if (transition && (old == null || old.isNull())) {
        continue;
      }
      if (Cel.holds(rule, value, transition ? old : null)) {
        continue;
      }
      String message = v.path("message").asText("failed rule: " + rule);
      String reason = v.path("reason").asText("FieldValueInvalid");
      String body =
          switch (reason) {
            case "FieldValueForbidden" -> "Forbidden: " + message;
            case "FieldValueRequired" -> "Required value: " + message;
            case "FieldValueDuplicate" -> "Duplicate value: " + message;
            default -> "Invalid value: \"" + jsonType(value) + "\": " + message;
          };
      violations.add(new Statuses.Cause(reason, path, body));
    }
  }

  private static boolean typeMatches(String type, JsonNode value) {
    return switch (type) {
      case "object" -> value.isObject();
      case "array" -> value.isArray();
      case "string" -> value.isTextual();
      case "integer" -> value.isIntegralNumber();
      case "number" -> value.isNumber();
      case "boolean" -> value.isBoolean();
      default -> true;
    };
  }

  private static String jsonType(JsonNode value) {
    if (value.isObject()) {
      return "object";
    }
    if (value.isArray()) {
      return "array";
    }
    if (value.isTextual()) {
      return "string";
    }
    if (value.isIntegralNumber()) {
      return "integer";
    }
    if (value.isNumber()) {
      return "number";
    }
    return value.isBoolean() ? "boolean" : "null";
  }
}
