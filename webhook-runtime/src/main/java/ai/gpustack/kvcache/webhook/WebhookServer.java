package ai.gpustack.kvcache.webhook;

import ai.gpustack.kvcache.admission.Admission;
import ai.gpustack.kvcache.admission.AdmissionException;
import ai.gpustack.kvcache.admission.Decision;
import ai.gpustack.kvcache.admission.Route;
import ai.gpustack.kvcache.cluster.MemoryOnly;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import io.netty.handler.ssl.ApplicationProtocolConfig;
import io.netty.handler.ssl.ClientAuth;
import io.netty.handler.ssl.JdkSslContext;
import io.netty.handler.ssl.SupportedCipherSuiteFilter;
import java.io.IOException;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.security.GeneralSecurityException;
import java.time.Duration;
import java.util.Collection;
import java.util.EnumSet;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import javax.net.ssl.KeyManager;
import javax.net.ssl.SSLContext;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The admission webhook over HTTPS, on {@link HttpEndpoint}: one path per {@link Route} served and
 * nothing else (health and metrics are the management port's, off the webhook's Service). TLS 1.3,
 * or TLS 1.2 with AEAD suites only; a handshake within 10 s and each whole request within 10 s (the
 * API server's own default webhook timeout), 1,024 connections at most, bodies up to {@value
 * #MAX_BODY_BYTES} bytes: no client can hold a thread or the port. An idle connection is kept
 * {@link #IDLE}, beyond the API server's own 90 s. Started with {@link #builder()}. A request that
 * is not a JSON AdmissionReview of the route's kind gets a 4xx with a one-line reason, never a
 * stack trace and never an accidental {@code allowed: true}.
 */
public final class WebhookServer implements AutoCloseable {
  /** Bodies above this are refused with 413. */
  public static final int MAX_BODY_BYTES = 3 * 1024 * 1024;

  /**
   * How long a connection may wait for its next request: longer than the 90 s kube-apiserver keeps
   * an idle one (client-go's transports take Go's {@code http.DefaultTransport}'s {@code
   * IdleConnTimeout}), so the API server closes first. Closing first, the server made the API
   * server handshake again after every pause (eight connections for eight concurrent creates), and
   * a call could go out on a connection being closed.
   */
  static final Duration IDLE = Duration.ofSeconds(120);

  /** The protocol versions spoken. */
  static final String[] PROTOCOLS = {"TLSv1.3", "TLSv1.2"};

  /** TLS 1.3's suites and TLS 1.2's forward-secret AEAD ones: no CBC, no SHA-1 MACs. */
  static final List<String> CIPHERS =
      List.of(
          "TLS_AES_128_GCM_SHA256",
          "TLS_AES_256_GCM_SHA384",
          "TLS_CHACHA20_POLY1305_SHA256",
          "TLS_ECDHE_ECDSA_WITH_AES_128_GCM_SHA256",
          "TLS_ECDHE_ECDSA_WITH_AES_256_GCM_SHA384",
          "TLS_ECDHE_ECDSA_WITH_CHACHA20_POLY1305_SHA256",
          "TLS_ECDHE_RSA_WITH_AES_128_GCM_SHA256",
          "TLS_ECDHE_RSA_WITH_AES_256_GCM_SHA384",
          "TLS_ECDHE_RSA_WITH_CHACHA20_POLY1305_SHA256");

  private static final Logger LOG = LoggerFactory.getLogger(WebhookServer.class);
  private static final ObjectMapper JSON = new ObjectMapper();

  private final HttpEndpoint endpoint;

  private WebhookServer(HttpEndpoint endpoint) {
    this.endpoint = endpoint;
  }

  /** Answers a review sent to a route's path; {@link Admission#review(Route, JsonNode)}. */
  @FunctionalInterface
  public interface Reviewer {
    JsonNode review(Route route, JsonNode review);

    /**
     * Whether {@link #review} may be tried on an event loop inside {@link MemoryOnly#attempt}: it
     * waits on nothing, or asks {@link MemoryOnly#check()} before it does. A review it cannot
     * answer there is answered on a handler thread.
     */
    default boolean answersFromMemory() {
      return false;
    }
  }

  /** A server to configure and start; nothing is opened until {@link Builder#start()}. */
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
    private MeterRegistry registry = new SimpleMeterRegistry();
    private Set<Route> routes = EnumSet.allOf(Route.class);

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

    /**
     * Answers every route with {@code admission}: on the event loop when its view holds what a
     * review reads ({@link Admission#answersFromMemory()}), else on a handler thread.
     */
    public Builder admission(Admission admission) {
      this.reviewer =
          new Reviewer() {
            @Override
            public JsonNode review(Route route, JsonNode review) {
              return admission.review(route, review);
            }

            @Override
            public boolean answersFromMemory() {
              return admission.answersFromMemory();
            }
          };
      return this;
    }

    /**
     * Answers every route with any {@link Reviewer}: on a handler thread unless it {@link
     * Reviewer#answersFromMemory()}.
     */
    public Builder reviewer(Reviewer reviewer) {
      this.reviewer = reviewer;
      return this;
    }

    /**
     * Where the admission counters and latency histogram go: any Micrometer registry (the
     * operator's, which its management port serves).
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

    /** Binds and serves; throws when the address is taken or a required part is missing. */
    public WebhookServer start() {
      if (address == null || tls == null || reviewer == null) {
        throw new IllegalStateException(
            "a webhook server needs address(...), keys(...) or sslContext(...), and admission(...)"
                + " or reviewer(...)");
      }
      // Reviews are answered on the event loops when the caches hold what they read: two loops
      // per core, Netty's own default, so a connection's bytes seldom wait behind another's
      // review (one per core answered no faster than handing every review over).
      int threads = Math.max(4, Runtime.getRuntime().availableProcessors() * 2);
      WebhookMetrics metrics = new WebhookMetrics(registry);
      Reviewer admission = reviewer;
      boolean tryFromMemory = reviewer.answersFromMemory();
      Set<Route> served = EnumSet.copyOf(routes.isEmpty() ? EnumSet.noneOf(Route.class) : routes);
      HttpEndpoint.Handler handler =
          new HttpEndpoint.Handler() {
            @Override
            public HttpEndpoint.Response handle(HttpEndpoint.Request request) {
              return route(request, served, admission, metrics);
            }

            @Override
            public Optional<HttpEndpoint.Response> handleWithoutBlocking(
                HttpEndpoint.Request request) {
              return tryFromMemory
                  ? MemoryOnly.attempt(() -> route(request, served, admission, metrics))
                  : Optional.empty();
            }
          };
      HttpEndpoint endpoint =
          HttpEndpoint.start(
              "kvcache-webhook",
              address,
              Optional.of(
                  new JdkSslContext(
                      tls,
                      false,
                      CIPHERS,
                      SupportedCipherSuiteFilter.INSTANCE,
                      ApplicationProtocolConfig.DISABLED,
                      ClientAuth.NONE,
                      PROTOCOLS,
                      false)),
              new HttpEndpoint.Limits(
                  MAX_BODY_BYTES,
                  Duration.ofSeconds(10),
                  Duration.ofSeconds(10),
                  IDLE,
                  1024,
                  threads,
                  threads),
              handler);
      LOG.info(
          "webhook listening on https://{}:{}",
          endpoint.address().getHostString(),
          endpoint.address().getPort());
      return new WebhookServer(endpoint);
    }
  }

  public InetSocketAddress address() {
    return endpoint.address();
  }

  /** Stops accepting, lets requests in flight finish (up to two seconds), and stops. */
  @Override
  public void close() {
    endpoint.close();
  }

  /** The route a path names, answered and counted; any other path is a 404. */
  private static HttpEndpoint.Response route(
      HttpEndpoint.Request request, Set<Route> served, Reviewer admission, WebhookMetrics metrics) {
    Optional<Route> route =
        served.stream().filter(r -> r.path().equals(request.path())).findFirst();
    if (route.isEmpty()) {
      return HttpEndpoint.Response.text(404, "no such path: " + firstLine(request.path()));
    }
    long start = System.nanoTime();
    Reply reply = answer(request, route.get(), admission);
    metrics.record(WebhookMetrics.name(route.get()), reply.verdict(), System.nanoTime() - start);
    return new HttpEndpoint.Response(
        reply.status(),
        reply.contentType(),
        reply.body(),
        reply.status() == 405 ? Map.of("Allow", "POST") : Map.of());
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

  private static Reply answer(HttpEndpoint.Request request, Route route, Reviewer admission) {
    if (!"POST".equals(request.method())) {
      return Reply.plain(405, "admission reviews are POSTed");
    }
    String type = request.contentType().orElse(null);
    if (type == null || !type.toLowerCase(Locale.ROOT).startsWith("application/json")) {
      return Reply.plain(415, "the content type must be application/json, not " + type);
    }
    JsonNode review;
    try {
      review = JSON.readTree(request.body());
    } catch (IOException e) {
      return Reply.plain(400, "the body is not JSON: " + firstLine(e.getMessage()));
    }
    JsonNode answer;
    try {
      answer = admission.review(route, review);
    } catch (AdmissionException e) {
      return Reply.plain(e.status(), e.getMessage());
    } catch (MemoryOnly.WouldBlock e) {
      throw e;
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
    try {
      return new Reply(200, "application/json", JSON.writeValueAsBytes(answer), verdict);
    } catch (IOException e) {
      throw new IllegalStateException("an admission answer did not serialize", e);
    }
  }

  private static String firstLine(String s) {
    return s == null ? "" : List.of(s.split("\\R", 2)).get(0);
  }
}
