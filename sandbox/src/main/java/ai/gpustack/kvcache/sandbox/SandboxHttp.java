package ai.gpustack.kvcache.sandbox;

import io.fabric8.mockwebserver.dsl.HttpMethod;
import io.fabric8.mockwebserver.http.Buffer;
import io.fabric8.mockwebserver.http.Dispatcher;
import io.fabric8.mockwebserver.http.Headers;
import io.fabric8.mockwebserver.http.MockResponse;
import io.fabric8.mockwebserver.http.RecordedRequest;
import io.fabric8.mockwebserver.vertx.ServerWebSocketHandler;
import io.vertx.core.Future;
import io.vertx.core.Vertx;
import io.vertx.core.VertxOptions;
import io.vertx.core.http.HttpServer;
import io.vertx.core.http.HttpServerOptions;
import io.vertx.core.http.HttpServerRequest;
import io.vertx.core.http.HttpServerResponse;
import io.vertx.core.net.SelfSignedCertificate;
import java.util.Locale;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;

/**
 * The sandbox's HTTPS front on loopback (HTTP/1.1, a self-signed certificate). Requests go to the
 * {@link Dispatcher} as fabric8's mock server would send them, except watches: over plain HTTP
 * (kubectl, client-go) or a WebSocket (fabric8's clients), {@link WatchStream} serves them, so both
 * resume from the {@code resourceVersion} asked for, as the API server's do. {@link Faults}, when
 * set, fall here, before anything is stored.
 */
final class SandboxHttp implements AutoCloseable {
  private final Vertx vertx;
  private final HttpServer server;
  private final Dispatcher dispatcher;
  private WatchStream watches;
  private volatile Faults faults = Faults.none();

  SandboxHttp(Dispatcher dispatcher, int port) {
    this.vertx = Vertx.vertx(new VertxOptions().setEventLoopPoolSize(2).setWorkerPoolSize(4));
    this.dispatcher = dispatcher;
    SelfSignedCertificate certificate = SelfSignedCertificate.create("localhost");
    HttpServerOptions options =
        new HttpServerOptions()
            .setHost("127.0.0.1")
            .setPort(port)
            .setSsl(true)
            .setKeyCertOptions(certificate.keyCertOptions())
            .setHandle100ContinueAutomatically(true)
            .setMaxWebSocketFrameSize(16 * 1024 * 1024)
            .setMaxWebSocketMessageSize(64 * 1024 * 1024);
    this.server = vertx.createHttpServer(options).requestHandler(this::handle);
    await(server.listen(), "start the sandbox API server on port " + port);
  }

  Vertx vertx() {
    return vertx;
  }

  void faults(Faults faults) {
    this.faults = faults;
  }

  Faults faults() {
    return faults;
  }

  void watches(WatchStream watches) {
    this.watches = watches;
  }

  int port() {
    return server.actualPort();
  }

  private void handle(HttpServerRequest request) {
    Faults faults = this.faults;
    boolean faulty = faults.applies(request.getHeader("User-Agent"));
    boolean watch =
        "true".equals(request.getParam("watch")) || "1".equals(request.getParam("watch"));
    if (faulty && watch && request.getParam("resourceVersion") != null && faults.expire()) {
      expired(request);
      return;
    }
    if (faulty && !watch) {
      Optional<Integer> code = faults.error(request.method().name());
      if (code.isPresent()) {
        fail(request, code.get());
        return;
      }
    }
    if (watches != null && WatchStream.isWatch(request)) {
      if (dispatcher instanceof SandboxDispatcher sandbox) {
        sandbox.served(recorded(request, new byte[0]));
      }
      if (faulty) {
        faults
            .watchDrop()
            .ifPresent(
                d ->
                    vertx.setTimer(
                        d.toMillis(),
                        id -> {
                          if (!request.response().closed()) {
                            faults.dropped();
                            request.connection().close();
                          }
                        }));
      }
      watches.serve(request);
      return;
    }
    long delay = faulty && !watch ? faults.latency() : 0;
    if (delay > 0) {
      request.pause();
      vertx.setTimer(
          delay,
          id -> {
            request.resume();
            dispatch(request);
          });
      return;
    }
    dispatch(request);
  }

  /**
   * A watch from a resource version too old to resume from, as the API server answers it: the watch
   * opens, its first event is an {@code ERROR} carrying the 410 {@code Expired} Status, and it
   * ends; the client lists again.
   */
  private static void expired(HttpServerRequest request) {
    String event = "{\"type\":\"ERROR\",\"object\":" + Faults.status(410) + "}";
    if ("websocket".equalsIgnoreCase(request.getHeader("Upgrade"))) {
      request
          .toWebSocket()
          .onSuccess(ws -> ws.writeTextMessage(event).onComplete(done -> ws.close()))
          .onFailure(e -> request.response().setStatusCode(400).end());
    } else {
      request
          .response()
          .setStatusCode(200)
          .putHeader("Content-Type", "application/json")
          .end(event + "\n");
    }
  }

  /** Answers {@code code} as the API server words it, with {@code Retry-After} on 429. */
  private static void fail(HttpServerRequest request, int code) {
    HttpServerResponse out =
        request.response().setStatusCode(code).putHeader("Content-Type", "application/json");
    if (code == 429) {
      out.putHeader("Retry-After", "1");
    }
    out.end(Faults.status(code));
  }

  private void dispatch(HttpServerRequest request) {
    // A WebSocket upgrade must find the request unread: read a body only when one is sent.
    (hasBody(request)
            ? request.body()
            : Future.succeededFuture(io.vertx.core.buffer.Buffer.buffer()))
        .onFailure(e -> request.response().setStatusCode(400).end(String.valueOf(e.getMessage())))
        .onSuccess(
            body -> {
              RecordedRequest recorded = recorded(request, body.getBytes());
              MockResponse answer = dispatcher.dispatch(recorded);
              if (answer.getWebSocketListener() != null) {
                request
                    .toWebSocket()
                    .onFailure(e -> request.response().setStatusCode(400).end())
                    .onSuccess(new ServerWebSocketHandler(recorded, answer));
                return;
              }
              HttpServerResponse out = request.response().setStatusCode(answer.code());
              answer.getHeaders().toMultimap().forEach((k, v) -> out.headers().add(k, v));
              Buffer payload = answer.getBody();
              if (payload == null) {
                out.end();
              } else {
                out.end(io.vertx.core.buffer.Buffer.buffer(payload.getBytes()));
              }
            });
  }

  /** {@code request} as fabric8's mock server records one. */
  private static RecordedRequest recorded(HttpServerRequest request, byte[] body) {
    return new RecordedRequest(
        request.version().alpnName().toUpperCase(Locale.ROOT),
        HttpMethod.fromVertx(request.method()),
        request.uri(),
        Headers.builder().addAll(request.headers()).build(),
        new Buffer(body));
  }

  private static boolean hasBody(HttpServerRequest request) {
    String length = request.getHeader("Content-Length");
    return (length != null && !length.isBlank() && Long.parseLong(length.trim()) > 0)
        || request.getHeader("Transfer-Encoding") != null;
  }

  private static <T> T await(Future<T> future, String what) {
    CompletableFuture<T> done = new CompletableFuture<>();
    future.onComplete(
        r -> {
          if (r.succeeded()) {
            done.complete(r.result());
          } else {
            done.completeExceptionally(r.cause());
          }
        });
    try {
      return done.get(30, TimeUnit.SECONDS);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new IllegalStateException("interrupted while trying to " + what, e);
    } catch (ExecutionException | TimeoutException e) {
      throw new IllegalStateException("could not " + what + ": " + e.getMessage(), e);
    }
  }

  @Override
  public void close() {
    await(server.close(), "stop the sandbox API server");
    await(vertx.close(), "stop the sandbox's event loops");
  }
}
