package ai.gpustack.kvcache.admission;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.NullNode;

/**
 * The parts of an AdmissionReview request the handlers read. {@code object} and {@code oldObject}
 * stay raw JSON until a rule reads them as its kind, so a malformed object is refused naming the
 * field instead of failing the whole review.
 */
public record Request(
    String uid,
    String kind,
    String operation,
    String namespace,
    String name,
    JsonNode object,
    JsonNode oldObject) {
  public Request {
    object = object == null ? NullNode.getInstance() : object;
    oldObject = oldObject == null ? NullNode.getInstance() : oldObject;
    namespace = namespace == null ? "" : namespace;
    name = name == null ? "" : name;
  }

  public boolean isCreate() {
    return "CREATE".equals(operation);
  }

  public boolean isUpdate() {
    return "UPDATE".equals(operation);
  }

  /** The object as a refusal names it: {@code ModelDeployment "chat"}. */
  public String subject() {
    String named = name.isEmpty() ? object.path("metadata").path("name").asText("") : name;
    if (named.isEmpty()) {
      String generate = object.path("metadata").path("generateName").asText("");
      named = generate.isEmpty() ? "(unnamed)" : generate + "(generated)";
    }
    return kind + " \"" + named + "\"";
  }
}
