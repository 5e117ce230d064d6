package ai.gpustack.kvcache.sandbox;

import static ai.gpustack.kvcache.api.Quoting.quote;

import ai.gpustack.kvcache.resources.Keys;
import ai.gpustack.kvcache.resources.KvCacheSerialization;
import ai.gpustack.kvcache.resources.ModelDeployment;
import ai.gpustack.kvcache.spi.EngineRegistry;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.client.utils.KubernetesSerialization;
import io.fabric8.mockwebserver.http.MockResponse;
import java.util.Map;
import java.util.Optional;

/**
 * {@code pods/NAME[:PORT]/proxy/PATH}: the replica's engine endpoint, answered by the stand-in
 * engine (a GET of its dtype report), as the API server relays a container's answer.
 */
final class PodProxyHandler {
  private final Store store;
  private final EngineEndpoints endpoints;
  private final KubernetesSerialization serialization = KvCacheSerialization.create();

  PodProxyHandler(Store store, EngineRegistry engines) {
    this.store = store;
    this.endpoints = new EngineEndpoints(engines, this::ownerOf);
  }

  MockResponse serve(ResourceRequest r) {
    String target = r.name();
    int colon = target.lastIndexOf(':');
    String name = colon < 0 ? target : target.substring(0, colon);
    int port;
    try {
      port = colon < 0 ? 80 : Integer.parseInt(target.substring(colon + 1));
    } catch (NumberFormatException e) {
      throw new StatusException(Statuses.badRequest("invalid port in " + quote(target)));
    }
    String bare = r.pathWithoutQuery();
    String tail = bare.substring(bare.indexOf("/proxy") + "/proxy".length());
    String podPath =
        "/api/v1/namespaces/" + r.path().namespace().orElse("default") + "/pods/" + name;
    Pod pod =
        store
            .read(podPath)
            .map(p -> serialization.convertValue(p, Pod.class))
            .orElseThrow(
                () -> new StatusException(Statuses.notFound("pods \"" + name + "\" not found")));
    EngineEndpoints.Answer answer = endpoints.get(pod, port, tail.isEmpty() ? "/" : tail);
    return new MockResponse()
        .setResponseCode(answer.code())
        .setHeader("Content-Type", "text/plain; charset=utf-8")
        .setBody(answer.body());
  }

  /** The deployment a managed replica belongs to, read from the store. */
  private Optional<ModelDeployment> ownerOf(Pod pod) {
    Map<String, String> labels = pod.getMetadata().getLabels();
    if (labels == null || labels.get(Keys.INSTANCE) == null) {
      return Optional.empty();
    }
    return store
        .read(
            "/apis/worker.gpustack.ai/v1/namespaces/"
                + pod.getMetadata().getNamespace()
                + "/modeldeployments/"
                + labels.get(Keys.INSTANCE))
        .map(n -> serialization.convertValue(n, ModelDeployment.class))
        .filter(md -> md.getSpec() != null);
  }
}
