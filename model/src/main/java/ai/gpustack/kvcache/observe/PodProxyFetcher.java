package ai.gpustack.kvcache.observe;

import ai.gpustack.kvcache.api.Quoting;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.client.Config;
import io.fabric8.kubernetes.client.ConfigBuilder;
import io.fabric8.kubernetes.client.http.AsyncBody;
import io.fabric8.kubernetes.client.http.HttpClient;
import io.fabric8.kubernetes.client.http.HttpRequest;
import io.fabric8.kubernetes.client.http.HttpResponse;
import io.fabric8.kubernetes.client.jdkhttp.JdkHttpClientFactory;
import io.fabric8.kubernetes.client.utils.URLUtils;
import java.io.ByteArrayOutputStream;
import java.net.http.HttpTimeoutException;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CancellationException;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;

/**
 * Reads a replica's endpoint through the API server's Pod proxy ({@code
 * /api/v1/namespaces/NS/pods/NAME:PORT/proxy/PATH}): it needs only the credentials a kubeconfig
 * holds, and no network path to the Pod, so {@code kvcache verify} works from a laptop and the
 * operator needs no route into the engines' network.
 *
 * <p>The answer is the engine's, so it is hostile. It is read on an HTTP client of its own that
 * never follows a redirect: the API server hands a Pod's {@code 302} back unchanged, and following
 * it would send our credentials to whatever host, or API path, the Pod names. A 3xx is a failed
 * read. One deadline covers the whole read, headers and body, so a trickling answer cannot hold a
 * read; the body is cut off at {@code maxBytes}; nothing is retried here (the caller backs off).
 */
public final class PodProxyFetcher implements ReportFetcher, AutoCloseable {
  /** The deadline over one whole read, for the operator and the tools alike. */
  public static final Duration DEADLINE = Duration.ofSeconds(5);

  /** The cap on one answer: a vLLM {@code /metrics} page is tens of KiB, server info a few. */
  public static final int MAX_BYTES = 256 << 10;

  private final HttpClient http;
  private final String masterUrl;
  private final Duration deadline;
  private final int maxBytes;

  /** A fetcher with the identity and TLS settings of {@code config}. */
  public PodProxyFetcher(Config config, Duration deadline, int maxBytes) {
    Config once = new ConfigBuilder(config).withRequestRetryBackoffLimit(0).build();
    this.http = new NoRedirects().newBuilder(once).build();
    this.masterUrl = config.getMasterUrl();
    this.deadline = deadline;
    this.maxBytes = maxBytes;
  }

  /**
   * fabric8's JDK client told never to follow a redirect; fabric8 asks for {@code ALWAYS} itself,
   * and this hook runs after it (the hostile-engine tests fail if that order ever changes).
   */
  private static final class NoRedirects extends JdkHttpClientFactory {
    @Override
    protected void additionalConfig(java.net.http.HttpClient.Builder builder) {
      builder.followRedirects(java.net.http.HttpClient.Redirect.NEVER);
    }
  }

  @Override
  public CompletableFuture<Fetch> fetch(Pod pod, int port, String path) {
    HttpRequest request =
        http.newHttpRequestBuilder()
            .uri(
                URLUtils.join(
                    masterUrl,
                    "api/v1/namespaces",
                    pod.getMetadata().getNamespace(),
                    "pods",
                    pod.getMetadata().getName() + ":" + port,
                    "proxy" + path))
            .timeout(deadline.toMillis(), TimeUnit.MILLISECONDS)
            .header("Accept", "text/plain, application/json")
            .build();
    CompletableFuture<Fetch> result = new CompletableFuture<>();
    Body body = new Body(maxBytes, result);
    CompletableFuture<HttpResponse<AsyncBody>> sent = http.consumeBytes(request, body);
    sent.whenComplete(
        (response, error) -> {
          if (error != null) {
            result.complete(failure(error));
          } else {
            body.answer(response);
          }
        });
    result.completeOnTimeout(
        Fetch.failed("timed out after " + deadline.toMillis() + " ms"),
        deadline.toMillis(),
        TimeUnit.MILLISECONDS);
    result.whenComplete(
        (fetch, error) -> {
          sent.cancel(true);
          body.cancel();
        });
    return result;
  }

  /**
   * The body as it arrives, up to the cap; completes {@code result} once it is whole or refused.
   */
  private static final class Body implements AsyncBody.Consumer<List<ByteBuffer>> {
    private final int maxBytes;
    private final CompletableFuture<Fetch> result;
    private final ByteArrayOutputStream bytes = new ByteArrayOutputStream();
    private final AtomicReference<AsyncBody> stream = new AtomicReference<>();

    Body(int maxBytes, CompletableFuture<Fetch> result) {
      this.maxBytes = maxBytes;
      this.result = result;
    }

    @Override
    public void consume(List<ByteBuffer> buffers, AsyncBody asyncBody) {
      synchronized (bytes) {
        for (ByteBuffer buffer : buffers) {
          if (bytes.size() + buffer.remaining() > maxBytes) {
            result.complete(Fetch.failed("the answer is larger than " + maxBytes + " bytes"));
            asyncBody.cancel();
            return;
          }
          byte[] chunk = new byte[buffer.remaining()];
          buffer.get(chunk);
          bytes.write(chunk, 0, chunk.length);
        }
      }
      asyncBody.consume();
    }

    void answer(HttpResponse<AsyncBody> response) {
      AsyncBody asyncBody = response.body();
      stream.set(asyncBody);
      if (result.isDone()) {
        asyncBody.cancel();
        return;
      }
      int code = response.code();
      if (code >= 300 && code < 400) {
        asyncBody.cancel();
        result.complete(Fetch.failed("HTTP " + code + ": a redirect, not followed"));
        return;
      }
      if (!response.isSuccessful()) {
        asyncBody.cancel();
        result.complete(Fetch.failed("HTTP " + code));
        return;
      }
      asyncBody
          .done()
          .whenComplete(
              (done, error) -> {
                if (error != null) {
                  result.complete(failure(error));
                } else {
                  synchronized (bytes) {
                    result.complete(
                        Fetch.answered(new String(bytes.toByteArray(), StandardCharsets.UTF_8)));
                  }
                }
              });
      asyncBody.consume();
    }

    void cancel() {
      AsyncBody asyncBody = stream.get();
      if (asyncBody != null) {
        asyncBody.cancel();
      }
    }
  }

  /** Why a read failed, in a few words: the exception's class and its first line, bounded. */
  private static Fetch failure(Throwable error) {
    Throwable cause = error;
    while (cause.getCause() != null && cause.getCause() != cause) {
      cause = cause.getCause();
    }
    if (cause instanceof CancellationException) {
      return Fetch.failed("cancelled");
    }
    if (cause instanceof HttpTimeoutException) {
      return Fetch.failed("timed out");
    }
    String message = String.valueOf(cause.getMessage()).lines().findFirst().orElse("");
    return Fetch.failed(
        "unreachable: "
            + cause.getClass().getSimpleName()
            + (cause.getMessage() == null || message.isBlank()
                ? ""
                : ": " + Quoting.printable(message, 120)));
  }

  @Override
  public void close() {
    http.close();
  }
}
