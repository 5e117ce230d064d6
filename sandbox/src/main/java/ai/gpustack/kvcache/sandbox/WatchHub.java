package ai.gpustack.kvcache.sandbox;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Deque;
import java.util.List;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.CopyOnWriteArraySet;
import java.util.function.Consumer;
import java.util.function.LongSupplier;
import java.util.function.Predicate;

/**
 * Every change the store makes, as watch events with the resource version the API server would give
 * them, kept for a while so a watch can start where its list left off, and handed to every open
 * watch that selects it. Thread-safe; sinks are called under the hub's lock and must not block.
 */
final class WatchHub {
  /** How many events a watch can resume across; an older resource version gets 410 Gone. */
  static final int HISTORY = 10_000;

  private static final ObjectMapper JSON = new ObjectMapper();

  /** One change: its type, its resource version, and where the object lives. */
  record Event(long resourceVersion, String type, ObjectNode object, String group, String plural) {
    String namespace() {
      return object.path("metadata").path("namespace").asText("");
    }
  }

  /** Which events a watch wants: one resource, optionally one namespace, and its selectors. */
  record Query(
      String group, String plural, Optional<String> namespace, Predicate<JsonNode> selects) {
    boolean matches(Event e) {
      return e.group().equals(group)
          && e.plural().equals(plural)
          && namespace.map(n -> n.equals(e.namespace())).orElse(true)
          && selects.test(e.object());
    }
  }

  private final ResourceCatalog catalog;
  private final Deque<Event> history = new ArrayDeque<>();
  private final Set<Subscription> subscriptions = new CopyOnWriteArraySet<>();
  private long latest;
  private long dropped;

  WatchHub(ResourceCatalog catalog) {
    this.catalog = catalog;
  }

  /** An open watch; close it when the client goes. */
  final class Subscription implements AutoCloseable {
    private final Query query;
    private final Consumer<Event> sink;

    private Subscription(Query query, Consumer<Event> sink) {
      this.query = query;
      this.sink = sink;
    }

    @Override
    public void close() {
      subscriptions.remove(this);
    }
  }

  /** The store changed an object from {@code old} to {@code now} (JSON; null when absent). */
  synchronized void publish(String old, String now, LongSupplier nextResourceVersion) {
    ObjectNode object = parse(now != null ? now : old);
    String kind = object.path("kind").asText("");
    String apiVersion = object.path("apiVersion").asText("");
    String group = apiVersion.contains("/") ? apiVersion.substring(0, apiVersion.indexOf('/')) : "";
    Optional<ResourceCatalog.Resource> resource = catalog.byKind(group, kind);
    if (resource.isEmpty()) {
      return;
    }
    String type = old == null ? "ADDED" : now == null ? "DELETED" : "MODIFIED";
    long rv;
    if (now == null) {
      // A deletion is a change of its own, with a resource version of its own.
      rv = nextResourceVersion.getAsLong();
      object.withObject("metadata").put("resourceVersion", Long.toString(rv));
    } else {
      rv = parseVersion(object.path("metadata").path("resourceVersion").asText(""));
      if (rv <= latest) {
        rv = nextResourceVersion.getAsLong();
      }
    }
    latest = Math.max(latest, rv);
    Event event = new Event(rv, type, object, group, resource.get().plural());
    history.addLast(event);
    if (history.size() > HISTORY) {
      dropped = history.removeFirst().resourceVersion();
    }
    for (Subscription s : subscriptions) {
      if (s.query.matches(event)) {
        s.sink.accept(event);
      }
    }
  }

  /** The newest resource version: what a list answered now is current as of. */
  synchronized long latest() {
    return latest;
  }

  /**
   * Opens a watch of {@code query} from {@code resourceVersion}: the events since then that it
   * selects, then every later one, to {@code sink}. Empty when that version is too old to resume
   * from (the API server's 410 Gone).
   */
  synchronized Optional<Subscription> subscribe(
      Query query, long resourceVersion, Consumer<Event> sink) {
    if (resourceVersion < dropped) {
      return Optional.empty();
    }
    List<Event> backlog = new ArrayList<>();
    for (Event e : history) {
      if (e.resourceVersion() > resourceVersion && query.matches(e)) {
        backlog.add(e);
      }
    }
    backlog.forEach(sink);
    Subscription s = new Subscription(query, sink);
    subscriptions.add(s);
    return Optional.of(s);
  }

  static long parseVersion(String rv) {
    try {
      return rv.isEmpty() ? 0 : Long.parseLong(rv);
    } catch (NumberFormatException e) {
      return 0;
    }
  }

  private static ObjectNode parse(String json) {
    try {
      return (ObjectNode) JSON.readTree(json);
    } catch (IOException e) {
      throw new UncheckedIOException("the store holds an object that is not JSON", e);
    }
  }
}
