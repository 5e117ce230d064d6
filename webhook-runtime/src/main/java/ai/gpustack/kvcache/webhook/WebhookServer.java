package ai.gpustack.kvcache.webhook;

import ai.gpustack.kvcache.admission.Admission;
import ai.gpustack.kvcache.admission.AdmissionException;
import ai.gpustack.kvcache.admission.Decision;
import ai.gpustack.kvcache.admission.Route;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.sun.net.httpserver.HttpExchange;
import com.sun.net.httpserver.HttpsConfigurator;
import com.sun.net.httpserver.HttpsParameters;
import com.sun.net.httpserver.HttpsServer;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import io.micrometer.prometheusmetrics.PrometheusMeterRegistry;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.security.GeneralSecurityException;
import java.util.Collection;
import java.util.EnumSet;
import java.util.List;
import java.util.Locale;
import java.util.Set;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.BooleanSupplier;
import javax.net.ssl.KeyManager;
import javax.net.ssl.SSLContext;
import javax.net.ssl.SSLParameters;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The admission webhook over HTTPS. The JDK's server: measured against Vert.x 4.5.24 with the same
 * handlers and load on 2 cores, Vert.x answers about 1.3 times the reviews per second at saturation
 * (no-op and injection alike); this one already holds p99 under 1.5 ms at 1,000 reviews/s, far
 * above any cluster's Pod creation rate, and needs no dependency. One path per {@link Route}
 * served, plus {@code /healthz}, {@code /readyz} (ready once the cluster view has synced) and, with
 * a Prometheus registry, {@code /metrics}. Started with {@link #builder()}; it sets nothing
 * JVM-wide unless asked ({@link Builder#tuneJvmWideHttpServer}). A request that is not a JSON
 * AdmissionReview of the route's kind gets a 4xx with a one-line reason, never a stack trace and
 * never an accidental {@code allowed: true}.
 */
public final class WebhookServer implements AutoCloseable {
  /** Bodies above this are refused with 413. */
  public static final int MAX_BODY_BYTES = 3 * 1024 * 1024;

  /** How much of an oversized body is read and dropped before refusing it. */
  private static final long DRAIN_BYTES = 16L * 1024 * 1024;

  private static final Logger LOG = LoggerFactory.getLogger(WebhookServer.class);
  private static final ObjectMapper JSON = new ObjectMapper();

  private final HttpsServer server;
  private final ExecutorService executor;

  private WebhookServer(HttpsServer server, ExecutorService executor) {
    this.server = server;
    this.executor = executor;
  }

  /** Answers a review sent to a route's path; {@link Admission#review(Route, JsonNode)}. */
  @FunctionalInterface
  public interface Reviewer {
    JsonNode review(Route route, JsonNode review);
  }

  /** A server to configure and start; nothing is opened or set until {@link Builder#start()}. */
  public static Builder builder() {
    return new Builder();
  }

  /**
   * What the server listens on, with which key material, answering which routes, and where it
   * counts. Not thread-safe; {@link #start()} may be called once per configuration.
   */
  public static final class Builder {
    private InetSocketAddress address;
    private SSLContext tls;
    private Reviewer reviewer;
    private BooleanSupplier ready = () -> true;
    private MeterRegistry registry = new SimpleMeterRegistry();
    private Set<Route> routes = EnumSet.allOf(Route.class);
    private boolean tuneJvmWideHttpServer;

    private Builder() {}

    /** Where to listen; port 0 picks a free one ({@link WebhookServer#address()} tells which). */
    public Builder address(InetSocketAddress address) {
      this.address = address;
      return this;
    }

    /** Serves the certificate {@code keys} holds, re-read when its files change. */
    public Builder keys(ReloadingKeyManager keys) {
      try {
        SSLContext context = SSLContext.getInstance("TLS");
        context.init(new KeyManager[] {keys}, null, null);
        this.tls = context;
      } catch (GeneralSecurityException e) {
        throw new IllegalStateException("TLS is not available in this JVM: " + e.getMessage(), e);
      }
      return this;
    }

    /** Serves with an initialised {@code context}: your operator's own key material. */
    public Builder sslContext(SSLContext context) {
      this.tls = context;
      return this;
    }

    /** Answers every route with {@code admission}. */
    public Builder admission(Admission admission) {
      this.reviewer = admission::review;
      return this;
    }

    /** Answers every route with any {@link Reviewer}. */
    public Builder reviewer(Reviewer reviewer) {
      this.reviewer = reviewer;
      return this;
    }

    /** Answers {@code /readyz}: ready once the cluster view has synced. Ready when not given. */
    public Builder ready(BooleanSupplier ready) {
      this.ready = ready;
      return this;
    }

    /**
     * Where the admission counters and latency histogram go: any Micrometer registry. {@code
     * /metrics} is served only with a {@link PrometheusMeterRegistry}; an embedding operator
     * usually scrapes its own.
     */
    public Builder meterRegistry(MeterRegistry registry) {
      this.registry = registry;
      return this;
    }

    /** The routes to serve (every {@link Route} unless given); the others answer 404. */
    public Builder routes(Collection<Route> routes) {
      this.routes = routes.isEmpty() ? EnumSet.noneOf(Route.class) : EnumSet.copyOf(routes);
      return this;
    }

    /**
     * JVM-wide, opt-in: sets the JDK HTTP server's {@code sun.net.httpserver.nodelay} (without it a
     * review waits on delayed ACKs, about 40 ms each) and 30-second {@code maxReqTime} and {@code
     * maxRspTime} (a stalled client cannot hold a thread), unless already set. The JDK reads them
     * once, so they reach every {@code com.sun.net.httpserver} server of the JVM. {@code kvcache
     * run} and {@code kvcache webhook} turn this on.
     */
    public Builder tuneJvmWideHttpServer(boolean tune) {
      this.tuneJvmWideHttpServer = tune;
      return this;
    }

    /** Binds and serves; throws when the address is taken or a required part is missing. */
    public WebhookServer start() throws IOException {
      if (address == null || tls == null || reviewer == null) {
        throw new IllegalStateException(
            "a webhook server needs address(...), keys(...) or sslContext(...), and admission(...)"
                + " or reviewer(...)");
      }
      if (tuneJvmWideHttpServer) {
        for (String[] p :
            new String[][] {
              {"sun.net.httpserver.maxReqTime", "30"},
              {"sun.net.httpserver.maxRspTime", "30"},
              {"sun.net.httpserver.nodelay", "true"}
            }) {
          System.setProperty(p[0], System.getProperty(p[0], p[1]));
        }
      }
      return WebhookServer.start(this);
    }
  }

  private static WebhookServer start(Builder b) throws IOException {
    SSLContext tls = b.tls;
    HttpsServer server = HttpsServer.create(b.address, 128);
    server.setHttpsConfigurator(
        new HttpsConfigurator(tls) {
          @Override
          public void configure(HttpsParameters params) {
            SSLParameters p = tls.getDefaultSSLParameters();
            p.setProtocols(new String[] {"TLSv1.3", "TLSv1.2"});
            params.setSSLParameters(p);
          }
        });
    WebhookMetrics metrics = new WebhookMetrics(b.registry);
    Reviewer admission = b.reviewer;
    for (Route route : b.routes) {
      server.createContext(route.path(), exchange -> admit(exchange, route, admission, metrics));
    }
    BooleanSupplier ready = b.ready;
    server.createContext("/healthz", exchange -> plain(exchange, 200, "ok"));
    server.createContext(
        "/readyz",
        exchange -> {
          boolean isReady = ready.getAsBoolean();
          plain(exchange, isReady ? 200 : 503, isReady ? "ready" : "informers have not synced yet");
        });
    if (b.registry instanceof PrometheusMeterRegistry prometheus) {
      server.createContext(
          "/metrics",
          exchange -> {
            byte[] body = prometheus.scrape().getBytes(StandardCharsets.UTF_8);
            exchange
                .getResponseHeaders()
                .set("Content-Type", "text/plain; version=0.0.4; charset=utf-8");
            send(exchange, 200, body);
          });
    }
    server.createContext(
        "/",
        exchange -> plain(exchange, 404, "no such path: " + exchange.getRequestURI().getPath()));
    int threads = Math.max(4, Runtime.getRuntime().availableProcessors() * 2);
    AtomicInteger n = new AtomicInteger();
    ExecutorService executor =
        Executors.newFixedThreadPool(
            threads,
            r -> {
              Thread t = new Thread(r, "kvcache-webhook-" + n.incrementAndGet());
              t.setDaemon(true);
              return t;
            });
    server.setExecutor(executor);
    server.start();
    LOG.info(
        "webhook listening on https://{}:{}",
        server.getAddress().getHostString(),
        server.getAddress().getPort());
    return new WebhookServer(server, executor);
  }

  public InetSocketAddress address() {
    return server.getAddress();
  }

  /** Stops accepting, lets requests in flight finish (up to two seconds), and stops. */
  @Override
  public void close() {
    server.stop(2);
    executor.shutdown();
    try {
      executor.awaitTermination(2, TimeUnit.SECONDS);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
  }

  /** An answer ready to send: counted before it is sent, so a scrape right after sees it. */
  private record Reply(int status, String contentType, byte[] body, String verdict) {
    static Reply plain(int status, String reason) {
      return new Reply(
          status,
          "text/plain; charset=utf-8",
          (firstLine(reason) + "\n").getBytes(StandardCharsets.UTF_8),
          "rejected");
    }
  }

  private static void admit(
      HttpExchange exchange, Route route, Reviewer admission, WebhookMetrics metrics) {
    long start = System.nanoTime();
    try (exchange) {
      Reply reply;
      try {
        reply = answer(exchange, route, admission);
      } catch (IOException e) {
        reply = Reply.plain(400, "the body could not be read: " + e.getMessage());
      }
      metrics.record(WebhookMetrics.name(route), reply.verdict(), System.nanoTime() - start);
      if (reply.status() == 405) {
        exchange.getResponseHeaders().set("Allow", "POST");
      }
      exchange.getResponseHeaders().set("Content-Type", reply.contentType());
      send(exchange, reply.status(), reply.body());
    } catch (IOException e) {
      LOG.debug("client went away: {}", e.getMessage());
    }
  }

  private static Reply answer(HttpExchange exchange, Route route, Reviewer admission)
      throws IOException {
    if (!exchange.getRequestURI().getPath().equals(route.path())) {
      return Reply.plain(404, "no such path: " + exchange.getRequestURI().getPath());
    }
    if (!"POST".equals(exchange.getRequestMethod())) {
      return Reply.plain(405, "admission reviews are POSTed");
    }
    // The body is read before any refusal, so a client still sending it gets the answer instead
    // of a stalled connection.
    byte[] body = readBody(exchange);
    if (body == null) {
      return Reply.plain(413, "the body is larger than " + MAX_BODY_BYTES + " bytes");
    }
    String type = exchange.getRequestHeaders().getFirst("Content-Type");
    if (type == null || !type.toLowerCase(Locale.ROOT).startsWith("application/json")) {
      return Reply.plain(415, "the content type must be application/json, not " + type);
    }
    JsonNode review;
    try {
      review = JSON.readTree(body);
    } catch (IOException e) {
      return Reply.plain(400, "the body is not JSON: " + firstLine(e.getMessage()));
    }
    JsonNode answer;
    try {
      answer = admission.review(route, review);
    } catch (AdmissionException e) {
      return Reply.plain(e.status(), e.getMessage());
    } catch (RuntimeException e) {
      // A bug must refuse, never allow: answer the review with a denial if it has a uid.
      LOG.error("admission route {} failed", route, e);
      String uid = review.path("request").path("uid").asText("");
      if (uid.isEmpty()) {
        return Reply.plain(
            400, "the review could not be answered: " + e.getClass().getSimpleName());
      }
      answer =
          Admission.respond(
              uid,
              Decision.deny(
                  500, "internal error answering the review: " + e.getClass().getSimpleName()));
    }
    JsonNode response = answer.path("response");
    String verdict =
        response.path("status").path("code").asInt() == 500
            ? "error"
            : !response.path("allowed").asBoolean(false)
                ? "denied"
                : response.has("patch") ? "patched" : "allowed";
    return new Reply(200, "application/json", JSON.writeValueAsBytes(answer), verdict);
  }

  /**
   * The body, or null when it exceeds the limit. An oversized body is read and dropped (up to a
   * bound) so the refusal reaches a client still sending, instead of a reset connection.
   */
  private static byte[] readBody(HttpExchange exchange) throws IOException {
    try (InputStream in = exchange.getRequestBody()) {
      // Sized by Content-Length when the client sends one (the API server does): reading up to
      // the limit instead allocates a 16 KiB buffer for every review, most of all allocation in
      // a profile of the webhook under load.
      long declared = contentLength(exchange);
      byte[] body =
          declared >= 0 && declared <= MAX_BODY_BYTES
              ? in.readNBytes((int) declared)
              : in.readNBytes(MAX_BODY_BYTES + 1);
      if (body.length <= MAX_BODY_BYTES) {
        return body;
      }
      byte[] sink = new byte[64 * 1024];
      long drained = 0;
      for (int n; drained < DRAIN_BYTES && (n = in.read(sink)) > 0; ) {
        drained += n;
      }
      return null;
    }
  }

  /** The request's Content-Length, or -1 when absent or unreadable (then the limit applies). */
  private static long contentLength(HttpExchange exchange) {
    String value = exchange.getRequestHeaders().getFirst("Content-Length");
    if (value == null) {
      return -1;
    }
    try {
      return Long.parseLong(value.strip());
    } catch (NumberFormatException e) {
      return -1;
    }
  }

  private static void plain(HttpExchange exchange, int status, String reason) throws IOException {
    exchange.getResponseHeaders().set("Content-Type", "text/plain; charset=utf-8");
    send(exchange, status, (firstLine(reason) + "\n").getBytes(StandardCharsets.UTF_8));
  }

  private static void send(HttpExchange exchange, int status, byte[] body) throws IOException {
    exchange.sendResponseHeaders(status, body.length == 0 ? -1 : body.length);
    try (OutputStream out = exchange.getResponseBody()) {
      out.write(body);
    }
  }

  private static String firstLine(String s) {
    return s == null ? "" : List.of(s.split("\\R", 2)).get(0);
  }
}
