package ai.gpustack.kvcache.sandbox;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.fabric8.mockwebserver.dsl.HttpMethod;
import io.fabric8.mockwebserver.http.Buffer;
import io.fabric8.mockwebserver.http.MockResponse;
import java.io.IOException;
import java.util.ArrayList;
import java.util.List;

/**
 * The {@code scale} subresource, as {@code kubectl scale} reads and patches it: an autoscaling/v1
 * Scale whose {@code spec.replicas} is the object's, written through the {@link WritePipeline} as
 * an update of the whole object.
 */
final class ScaleHandler {
  private static final ObjectMapper JSON = new ObjectMapper();

  private final Store store;
  private final WritePipeline writes;

  ScaleHandler(Store store, WritePipeline writes) {
    this.store = store;
    this.writes = writes;
  }

  MockResponse serve(ResourceRequest r) throws IOException {
    JsonNode stored =
        store
            .read(r.objectPath())
            .orElseThrow(() -> new StatusException(Statuses.notFound(r.kind(), r.name())));
    JsonNode scale = scaleOf(stored);
    if (r.method() == HttpMethod.GET) {
      return Responses.json(200, scale);
    }
    int replicas = replicas(r, wanted(r, scale));
    ObjectNode object = stored.deepCopy();
    object.withObjectProperty("spec").put("replicas", replicas);
    MockResponse written = writes.update(wholeObject(r), object, false);
    if (written.code() >= 300) {
      return written;
    }
    return Responses.json(200, scaleOf(store.read(r.objectPath()).orElse(object)));
  }

  /** The Scale a PUT or PATCH asks for. */
  private static JsonNode wanted(ResourceRequest r, JsonNode scale) throws IOException {
    switch (r.method()) {
      case PUT -> {
        return r.body();
      }
      case PATCH -> {
        String type = r.header("Content-Type");
        if (!Patches.readable(type)) {
          throw new StatusException(Statuses.unsupportedPatch());
        }
        return Patches.apply(type, scale, r.body());
      }
      default ->
          throw new StatusException(
              Statuses.of(
                  405,
                  "MethodNotAllowed",
                  "the scale subresource is read with GET and written with PUT or PATCH"));
    }
  }

  private static int replicas(ResourceRequest r, JsonNode wanted) {
    JsonNode replicas = wanted.path("spec").path("replicas");
    if (!replicas.canConvertToInt() || replicas.asInt() < 0) {
      throw new StatusException(
          Statuses.invalid(
              r.kind(),
              r.name(),
              List.of(
                  new Statuses.Cause(
                      "FieldValueInvalid",
                      "spec.replicas",
                      "Invalid value: " + replicas + ": must be greater than or equal to 0"))));
    }
    return replicas.asInt();
  }

  /** {@code r} as a PUT of the object itself, so that it is validated and admitted as one. */
  private static ResourceRequest wholeObject(ResourceRequest r) {
    return new ResourceRequest(
        ApiPath.parse(r.objectPath()).orElseThrow(),
        r.kind(),
        r.query(),
        r.resent(HttpMethod.PUT, r.objectPath(), new Buffer()));
  }

  private static JsonNode scaleOf(JsonNode object) {
    ObjectNode scale =
        JSON.createObjectNode().put("kind", "Scale").put("apiVersion", "autoscaling/v1");
    ObjectNode metadata = scale.putObject("metadata");
    for (String field :
        List.of("name", "namespace", "uid", "resourceVersion", "creationTimestamp")) {
      if (object.path("metadata").has(field)) {
        metadata.set(field, object.path("metadata").get(field));
      }
    }
    scale.putObject("spec").put("replicas", object.path("spec").path("replicas").asInt(1));
    List<String> selector = new ArrayList<>();
    object
        .path("spec")
        .path("selector")
        .path("matchLabels")
        .properties()
        .forEach(e -> selector.add(e.getKey() + "=" + e.getValue().asText()));
    scale
        .putObject("status")
        .put("replicas", object.path("status").path("replicas").asInt(0))
        .put("selector", String.join(",", selector));
    return scale;
  }
}
