package ai.gpustack.kvcache.observe;

import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.http.HttpClient;
import io.fabric8.kubernetes.client.http.HttpRequest;
import io.fabric8.kubernetes.client.http.HttpResponse;
import io.fabric8.kubernetes.client.utils.URLUtils;
import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;

/**
 * Reads a replica's endpoint through the API server's Pod proxy ({@code
 * /api/v1/namespaces/NS/pods/NAME:PORT/proxy/PATH}): it needs only the credentials a kubeconfig
 * holds, and no network path to the Pod, so {@code kvcache verify} works from a laptop and the
 * operator needs no route into the engines' network. Answers are cut off at {@code maxBytes} and
 * {@code timeout}.
 */
public final class PodProxyFetcher implements ReportFetcher {
  private final KubernetesClient client;
  private final Duration timeout;
  private final int maxBytes;

  public PodProxyFetcher(KubernetesClient client, Duration timeout, int maxBytes) {
    this.client = client;
    this.timeout = timeout;
    this.maxBytes = maxBytes;
  }

  @Override
  public Fetch fetch(Pod pod, int port, String path) {
    String url =
        URLUtils.join(
            client.getMasterUrl().toString(),
            "api/v1/namespaces",
            pod.getMetadata().getNamespace(),
            "pods",
            pod.getMetadata().getName() + ":" + port,
            "proxy" + path);
    HttpClient http = client.getHttpClient();
    HttpRequest request =
        http.newHttpRequestBuilder()
            .uri(url)
            .timeout(timeout.toMillis(), TimeUnit.MILLISECONDS)
            .header("Accept", "text/plain, application/json")
            .build();
    HttpResponse<InputStream> response;
    try {
      response =
          http.sendAsync(request, InputStream.class).get(timeout.toMillis(), TimeUnit.MILLISECONDS);
    } catch (TimeoutException e) {
      return Fetch.failed("timed out after " + timeout.toMillis() + " ms");
    } catch (ExecutionException e) {
      return Fetch.failed("unreachable: " + e.getCause().getMessage());
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      return Fetch.failed("interrupted");
    }
    try (InputStream body = response.body()) {
      if (!response.isSuccessful()) {
        return Fetch.failed("HTTP " + response.code());
      }
      byte[] bytes = body == null ? new byte[0] : body.readNBytes(maxBytes + 1);
      if (bytes.length > maxBytes) {
        return Fetch.failed("the answer is larger than " + maxBytes + " bytes");
      }
      return Fetch.answered(new String(bytes, StandardCharsets.UTF_8));
    } catch (IOException e) {
      return Fetch.failed("unreadable answer: " + e.getMessage());
    }
  }
}
