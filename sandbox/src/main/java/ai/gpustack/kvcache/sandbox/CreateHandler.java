package ai.gpustack.kvcache.sandbox;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.fabric8.mockwebserver.http.MockResponse;
import java.io.IOException;
import java.security.SecureRandom;
import java.util.List;

/**
 * POST to a collection: the object gets the request's namespace and, from {@code generateName}, a
 * name; one already there is refused; the {@link WritePipeline} does the rest.
 */
final class CreateHandler {
  private static final String NAME_CHARS = "bcdfghjklmnpqrstvwxz2456789";
  private static final SecureRandom RANDOM = new SecureRandom();

  private final Store store;
  private final WritePipeline writes;

  CreateHandler(Store store, WritePipeline writes) {
    this.store = store;
    this.writes = writes;
  }

  MockResponse serve(ResourceRequest r) throws IOException {
    JsonNode body = r.body();
    if (!body.isObject()) {
      throw new StatusException(
          Statuses.badRequest("the body of the request is not a JSON object"));
    }
    ObjectNode object = (ObjectNode) body;
    ObjectNode meta = object.withObject("metadata");
    r.path().namespace().ifPresent(ns -> placeIn(ns, meta));
    if (meta.path("name").asText("").isEmpty()) {
      meta.put("name", generatedName(r, meta));
    }
    String name = meta.get("name").asText();
    String at = r.objectPath() + "/" + name;
    if (store.read(at).isPresent()) {
      throw new StatusException(Statuses.alreadyExists(r.kind(), name));
    }
    return writes.create(r, object, at);
  }

  private static void placeIn(String namespace, ObjectNode meta) {
    String sent = meta.path("namespace").asText("");
    if (!sent.isEmpty() && !sent.equals(namespace)) {
      throw new StatusException(
          Statuses.badRequest(
              "the namespace of the provided object does not match the namespace sent on the"
                  + " request"));
    }
    meta.put("namespace", namespace);
  }

  private static String generatedName(ResourceRequest r, ObjectNode meta) {
    String prefix = meta.path("generateName").asText("");
    if (prefix.isEmpty()) {
      throw new StatusException(
          Statuses.invalid(
              r.kind(),
              "",
              List.of(
                  new Statuses.Cause(
                      "FieldValueRequired",
                      "metadata.name",
                      "Required value: name or generateName is required"))));
    }
    return prefix + suffix();
  }

  /** Five characters of the alphabet the API server generates names from. */
  private static String suffix() {
    StringBuilder s = new StringBuilder(5);
    for (int i = 0; i < 5; i++) {
      s.append(NAME_CHARS.charAt(RANDOM.nextInt(NAME_CHARS.length())));
    }
    return s.toString();
  }
}
