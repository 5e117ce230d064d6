package ai.gpustack.kvcache.sandbox;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.util.List;

/**
 * The API server's {@code Status} answers, worded as it words them (k8s.io/apimachinery {@code
 * api/errors}): kubectl prints {@code Error from server (<reason>): <message>}, and for {@code
 * Invalid} it prints the causes, so both must be right.
 */
final class Statuses {
  private static final ObjectMapper JSON = new ObjectMapper();

  /** A Status answer: its HTTP code and its body. */
  record Status(int code, ObjectNode body) {
    String json() {
      return body.toString();
    }
  }

  /** One cause of an {@code Invalid} answer: the field, its reason and its message. */
  record Cause(String reason, String field, String message) {}

  private Statuses() {}

  static Status of(int code, String reason, String message) {
    ObjectNode status = JSON.createObjectNode().put("kind", "Status").put("apiVersion", "v1");
    status.putObject("metadata");
    status.put("status", "Failure").put("message", message);
    if (!reason.isEmpty()) {
      status.put("reason", reason);
    }
    status.put("code", code);
    return new Status(code, status);
  }

  static Status notFound(String message) {
    return of(404, "NotFound", message);
  }

  static Status badRequest(String message) {
    return of(400, "BadRequest", message);
  }

  /** {@code <plural>.<group> "<name>" not found}. */
  static Status notFound(ResourceCatalog.Resource resource, String name) {
    return details(
        of(404, "NotFound", qualified(resource) + " \"" + name + "\" not found"), resource, name);
  }

  /** {@code <plural>.<group> "<name>" already exists}. */
  static Status alreadyExists(ResourceCatalog.Resource resource, String name) {
    return details(
        of(409, "AlreadyExists", qualified(resource) + " \"" + name + "\" already exists"),
        resource,
        name);
  }

  /** A write against a resource version that is no longer the stored one. */
  static Status conflict(ResourceCatalog.Resource resource, String name) {
    return details(
        of(
            409,
            "Conflict",
            "Operation cannot be fulfilled on "
                + qualified(resource)
                + " \""
                + name
                + "\": the object has been modified; please apply your changes to the latest"
                + " version and try again"),
        resource,
        name);
  }

  /**
   * {@code <Kind>.<group> "<name>" is invalid: [causes]}, details naming the Kind (not the plural,
   * as the API server does for Invalid).
   */
  static Status invalid(ResourceCatalog.Resource resource, String name, List<Cause> causes) {
    String kind =
        resource.group().isEmpty() ? resource.kind() : resource.kind() + "." + resource.group();
    List<String> lines =
        causes.stream()
            .map(c -> c.field().isEmpty() ? c.message() : c.field() + ": " + c.message())
            .toList();
    String body = lines.size() == 1 ? lines.get(0) : "[" + String.join(", ", lines) + "]";
    Status status = of(422, "Invalid", kind + " \"" + name + "\" is invalid: " + body);
    ObjectNode details = status.body().putObject("details").put("name", name);
    if (!resource.group().isEmpty()) {
      details.put("group", resource.group());
    }
    details.put("kind", resource.kind());
    ArrayNode list = details.putArray("causes");
    causes.forEach(
        c ->
            list.addObject()
                .put("reason", c.reason())
                .put("message", c.message())
                .put("field", c.field()));
    return status;
  }

  /** A watch's resource version is older than what the server still keeps. */
  static ObjectNode expired(String message) {
    return of(410, "Expired", message).body();
  }

  /** What a custom resource answers a strategic merge patch with. */
  static Status unsupportedPatch() {
    return of(
        415,
        "UnsupportedMediaType",
        "the body of the request was in an unknown format - accepted media types include:"
            + " application/json-patch+json, application/merge-patch+json,"
            + " application/apply-patch+yaml");
  }

  private static String qualified(ResourceCatalog.Resource resource) {
    return resource.group().isEmpty()
        ? resource.plural()
        : resource.plural() + "." + resource.group();
  }

  private static Status details(Status status, ResourceCatalog.Resource resource, String name) {
    ObjectNode details = status.body().putObject("details").put("name", name);
    if (!resource.group().isEmpty()) {
      details.put("group", resource.group());
    }
    details.put("kind", resource.plural());
    return status;
  }
}
