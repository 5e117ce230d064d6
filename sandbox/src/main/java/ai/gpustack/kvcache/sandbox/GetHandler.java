package ai.gpustack.kvcache.sandbox;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.fabric8.mockwebserver.http.MockResponse;
import java.util.List;
import java.util.Optional;

/**
 * GET of one object or of a collection, with label and field selectors, as a Table when asked;
 * events are read from both events APIs.
 */
final class GetHandler {
  private static final ObjectMapper JSON = new ObjectMapper();

  private final Store store;
  private final WatchHub hub;

  GetHandler(Store store, WatchHub hub) {
    this.store = store;
    this.hub = hub;
  }

  MockResponse serve(ResourceRequest r) {
    return r.path().name().isPresent() ? one(r) : list(r);
  }

  private MockResponse one(ResourceRequest r) {
    Optional<JsonNode> object = store.read(r.objectPath());
    if (object.isEmpty() && EventConversion.isEvents(r.kind())) {
      object = store.read(otherEventsApi(r)).map(e -> EventConversion.as(r.kind().group(), e));
    }
    return Responses.object(
        r,
        200,
        object.orElseThrow(() -> new StatusException(Statuses.notFound(r.kind(), r.name()))));
  }

  private MockResponse list(ResourceRequest r) {
    List<JsonNode> items = store.list(r.objectPath());
    if (EventConversion.isEvents(r.kind())) {
      store
          .list(otherEventsApi(r))
          .forEach(e -> items.add(EventConversion.as(r.kind().group(), e)));
    }
    Selector labels =
        Optional.ofNullable(r.query().get("labelSelector"))
            .map(Selector::labels)
            .orElse(Selector.EVERYTHING);
    Selector fields =
        Optional.ofNullable(r.query().get("fieldSelector"))
            .map(Selector::fields)
            .orElse(Selector.EVERYTHING);
    ObjectNode list =
        JSON.createObjectNode()
            .put("apiVersion", r.kind().apiVersion())
            .put("kind", r.kind().kind() + "List");
    list.putObject("metadata").put("resourceVersion", Long.toString(hub.latest()));
    ArrayNode out = list.putArray("items");
    items.stream().filter(labels).filter(fields).forEach(out::add);
    return Responses.object(r, 200, list);
  }

  /** The same events path in the other events API. */
  private static String otherEventsApi(ResourceRequest r) {
    String ns = r.path().namespace().map(n -> "/namespaces/" + n).orElse("");
    String name = r.path().name().map(n -> "/" + n).orElse("");
    return (r.kind().group().isEmpty() ? "/apis/events.k8s.io/v1" : "/api/v1")
        + ns
        + "/events"
        + name;
  }
}
