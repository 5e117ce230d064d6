package ai.gpustack.kvcache.sandbox;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.vertx.core.Context;
import io.vertx.core.Vertx;
import io.vertx.core.http.HttpServerRequest;
import io.vertx.core.http.HttpServerResponse;
import io.vertx.core.http.ServerWebSocket;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.ThreadLocalRandom;
import java.util.function.Predicate;
import java.util.function.Supplier;

/**
 * A watch, as kubectl and client-go open one over plain HTTP ({@code 200}, then one JSON event per
 * line) or fabric8's clients over a WebSocket (one event per text frame) ({@code ADDED}, {@code
 * MODIFIED}, {@code DELETED}, {@code BOOKMARK}, {@code ERROR}) for as long as {@code
 * timeoutSeconds} allows or the client stays. Starts after the {@code resourceVersion} asked for
 * (with every selected object as {@code ADDED} when none, or {@code 0}), honours the namespace,
 * {@code labelSelector} and {@code fieldSelector}, and writes each object as a one-row Table when
 * the client asked for Tables ({@code kubectl get -w}).
 */
final class WatchStream {
  private static final ObjectMapper JSON = new ObjectMapper();

  /** Where a watch's events go: the lines of a chunked response, or WebSocket text frames. */
  interface Sink {
    /** Before the first event: a Status instead, and the end. */
    void refuse(Statuses.Status status);

    /** Opens the stream (HTTP: 200 and the headers). */
    void open();

    void write(String event);

    void end();

    boolean closed();

    void onClose(Runnable closed);
  }

  static Sink http(HttpServerResponse out) {
    return new Sink() {
      @Override
      public void refuse(Statuses.Status status) {
        send(out, status);
      }

      @Override
      public void open() {
        out.setChunked(true).setStatusCode(200).putHeader("Content-Type", "application/json");
        out.write("");
      }

      @Override
      public void write(String event) {
        out.write(event + "\n");
      }

      @Override
      public void end() {
        out.end();
      }

      @Override
      public boolean closed() {
        return out.closed() || out.ended();
      }

      @Override
      public void onClose(Runnable closed) {
        out.closeHandler(v -> closed.run());
      }
    };
  }

  /**
   * fabric8's clients watch over a WebSocket, one event per text frame; a refusal is an {@code
   * ERROR} event, as the API server sends it once the socket is open.
   */
  static Sink webSocket(ServerWebSocket ws) {
    return new Sink() {
      @Override
      public void refuse(Statuses.Status status) {
        write("{\"type\":\"ERROR\",\"object\":" + status.json() + "}");
        end();
      }

      @Override
      public void open() {}

      @Override
      public void write(String event) {
        if (!ws.isClosed()) {
          ws.writeTextMessage(event);
        }
      }

      @Override
      public void end() {
        if (!ws.isClosed()) {
          ws.close();
        }
      }

      @Override
      public boolean closed() {
        return ws.isClosed();
      }

      @Override
      public void onClose(Runnable closed) {
        ws.closeHandler(v -> closed.run());
      }
    };
  }

  private static final long BOOKMARK_MILLIS = 30_000;

  private final Vertx vertx;
  private final WatchHub hub;
  private final ResourceCatalog catalog;
  private final Supplier<List<String>> stored;

  /** {@code stored}: every object in the store now, as JSON. */
  WatchStream(Vertx vertx, WatchHub hub, ResourceCatalog catalog, Supplier<List<String>> stored) {
    this.vertx = vertx;
    this.hub = hub;
    this.catalog = catalog;
    this.stored = stored;
  }

  /** Whether {@code request} opens a watch, over plain HTTP or (fabric8's clients) a WebSocket. */
  static boolean isWatch(HttpServerRequest request) {
    String watch = request.getParam("watch");
    return request.method() == io.vertx.core.http.HttpMethod.GET
        && ("true".equals(watch) || "1".equals(watch));
  }

  /** Serves the watch {@code request} opens, over plain HTTP or upgraded to a WebSocket. */
  void serve(HttpServerRequest request) {
    if ("websocket".equalsIgnoreCase(request.getHeader("Upgrade"))) {
      request
          .toWebSocket()
          .onSuccess(ws -> serve(request, webSocket(ws)))
          .onFailure(e -> request.response().setStatusCode(400).end());
    } else {
      serve(request, http(request.response()));
    }
  }

  private void serve(HttpServerRequest request, Sink out) {
    Optional<ApiPath> path = ApiPath.parse(request.uri());
    Optional<ResourceCatalog.Resource> resource =
        path.flatMap(p -> catalog.find(p.group(), p.plural()));
    if (resource.isEmpty()) {
      out.refuse(Statuses.notFound("the server could not find the requested resource"));
      return;
    }
    Predicate<JsonNode> selects;
    try {
      selects = selection(request, path.get().name());
    } catch (IllegalArgumentException e) {
      out.refuse(Statuses.badRequest(e.getMessage()));
      return;
    }
    String rv = Optional.ofNullable(request.getParam("resourceVersion")).orElse("");
    if (!rv.isEmpty() && !rv.matches("[0-9]+")) {
      out.refuse(Statuses.badRequest("resourceVersion " + rv + " is not a resource version"));
      return;
    }
    WatchHub.Query query =
        new WatchHub.Query(
            resource.get().group(), resource.get().plural(), path.get().namespace(), selects);
    stream(request, out, resource.get(), query, rv);
  }

  /** The objects a watch sees: those its selectors and, when it names one, its name select. */
  private static Predicate<JsonNode> selection(HttpServerRequest request, Optional<String> name) {
    Selector labels =
        Optional.ofNullable(request.getParam("labelSelector"))
            .map(Selector::labels)
            .orElse(Selector.EVERYTHING);
    Selector fields =
        Optional.ofNullable(request.getParam("fieldSelector"))
            .map(Selector::fields)
            .orElse(Selector.EVERYTHING);
    return o ->
        labels.test(o)
            && fields.test(o)
            && name.map(n -> n.equals(o.path("metadata").path("name").asText())).orElse(true);
  }

  /**
   * Opens the stream and writes to it: the stored objects first when the watch starts now, then
   * every change after {@code rv} until the watch ends.
   */
  private void stream(
      HttpServerRequest request,
      Sink out,
      ResourceCatalog.Resource resource,
      WatchHub.Query query,
      String rv) {
    // sendInitialEvents (client-go's watch-list): the current objects first, as for "now", then a
    // bookmark saying they are all sent.
    boolean initialEvents = "true".equals(request.getParam("sendInitialEvents"));
    boolean bookmarked = "true".equals(request.getParam("allowWatchBookmarks"));
    boolean fromNow = initialEvents || rv.isEmpty() || rv.equals("0");
    String accept = request.getHeader("Accept");
    Writer writer = new Writer(out, resource, accept != null && accept.contains("as=Table"));
    Context context = vertx.getOrCreateContext();
    out.open();
    long from = fromNow ? hub.latest() : Long.parseLong(rv);
    if (fromNow) {
      storedNow(resource, query).forEach(writer::write);
    }
    if (initialEvents && bookmarked) {
      writer.bookmark(from, true);
    }
    Optional<WatchHub.Subscription> subscription =
        hub.subscribe(query, from, e -> context.runOnContext(v -> writer.write(e)));
    if (subscription.isEmpty()) {
      writer.expired(rv);
      out.end();
      return;
    }
    endLater(request, out, writer, subscription.get(), bookmarked);
  }

  /** The stored objects {@code query} selects, as {@code ADDED} events. */
  private List<WatchHub.Event> storedNow(ResourceCatalog.Resource resource, WatchHub.Query query) {
    List<WatchHub.Event> events = new ArrayList<>();
    for (String json : stored.get()) {
      WatchHub.Event e = event(read(json), resource);
      if (e != null && query.matches(e)) {
        events.add(e);
      }
    }
    return events;
  }

  /**
   * Ends the watch after {@code timeoutSeconds} (by default a random half hour to hour, as the API
   * server spreads its watches' ends), sends bookmarks meanwhile when asked, and stops all of it
   * when the client goes.
   */
  private void endLater(
      HttpServerRequest request,
      Sink out,
      Writer writer,
      WatchHub.Subscription subscription,
      boolean bookmarked) {
    long timeout =
        Optional.ofNullable(request.getParam("timeoutSeconds"))
            .filter(s -> s.matches("[0-9]+"))
            .map(s -> Long.parseLong(s) * 1000)
            .orElse(ThreadLocalRandom.current().nextLong(1_800_000, 3_600_000));
    long end =
        vertx.setTimer(
            Math.max(1, timeout),
            id -> {
              subscription.close();
              out.end();
            });
    long bookmarks =
        bookmarked
            ? vertx.setPeriodic(BOOKMARK_MILLIS, id -> writer.bookmark(hub.latest(), false))
            : -1;
    out.onClose(
        () -> {
          subscription.close();
          vertx.cancelTimer(end);
          if (bookmarks >= 0) {
            vertx.cancelTimer(bookmarks);
          }
        });
  }

  /** {@code object} as the event of a stored object of {@code resource}; null for another kind. */
  private static WatchHub.Event event(ObjectNode object, ResourceCatalog.Resource resource) {
    String apiVersion = object.path("apiVersion").asText("");
    String group = apiVersion.contains("/") ? apiVersion.substring(0, apiVersion.indexOf('/')) : "";
    if (!group.equals(resource.group()) || !object.path("kind").asText().equals(resource.kind())) {
      return null;
    }
    return new WatchHub.Event(
        WatchHub.parseVersion(object.path("metadata").path("resourceVersion").asText("")),
        "ADDED",
        object,
        resource.group(),
        resource.plural());
  }

  /** Writes events to one response, on its context, in order. */
  private static final class Writer {
    private final Sink out;
    private final ResourceCatalog.Resource resource;
    private final boolean table;
    private boolean columnsSent;

    Writer(Sink out, ResourceCatalog.Resource resource, boolean table) {
      this.out = out;
      this.resource = resource;
      this.table = table;
    }

    void write(WatchHub.Event e) {
      JsonNode object = e.object();
      if (table) {
        ObjectNode t = (ObjectNode) Tables.table(resource, object);
        if (columnsSent) {
          t.remove("columnDefinitions");
        }
        columnsSent = true;
        object = t;
      }
      line(Map.of("type", e.type(), "object", object));
    }

    void bookmark(long resourceVersion, boolean initialEventsEnd) {
      ObjectNode o =
          JSON.createObjectNode()
              .put("kind", resource.kind())
              .put("apiVersion", resource.apiVersion());
      ObjectNode metadata =
          o.putObject("metadata").put("resourceVersion", Long.toString(resourceVersion));
      if (initialEventsEnd) {
        metadata.putObject("annotations").put("k8s.io/initial-events-end", "true");
      }
      line(Map.of("type", "BOOKMARK", "object", o));
    }

    void expired(String rv) {
      line(
          Map.of(
              "type",
              "ERROR",
              "object",
              Statuses.expired(
                  "too old resource version: "
                      + rv
                      + " (the sandbox keeps the last "
                      + WatchHub.HISTORY
                      + " changes)")));
    }

    private void line(Map<String, Object> event) {
      if (out.closed()) {
        return;
      }
      try {
        ObjectNode e = JSON.createObjectNode();
        e.put("type", (String) event.get("type"));
        e.set("object", (JsonNode) event.get("object"));
        out.write(JSON.writeValueAsString(e));
      } catch (IOException ex) {
        throw new UncheckedIOException(ex);
      }
    }
  }

  private static ObjectNode read(String json) {
    try {
      return (ObjectNode) JSON.readTree(json);
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  private static void send(HttpServerResponse out, Statuses.Status status) {
    out.setStatusCode(status.code())
        .putHeader("Content-Type", "application/json")
        .end(status.json());
  }
}
