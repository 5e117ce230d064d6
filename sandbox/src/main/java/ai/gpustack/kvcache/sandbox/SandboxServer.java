package ai.gpustack.kvcache.sandbox;

import ai.gpustack.kvcache.resources.KvCacheSerialization;
import ai.gpustack.kvcache.spi.EngineRegistry;
import com.fasterxml.jackson.databind.JsonNode;
import io.fabric8.kubernetes.api.model.NamespaceBuilder;
import io.fabric8.kubernetes.api.model.apiextensions.v1.CustomResourceDefinition;
import io.fabric8.kubernetes.client.Config;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.KubernetesClientBuilder;
import io.fabric8.kubernetes.client.server.mock.KubernetesCrudDispatcher;
import io.fabric8.kubernetes.client.server.mock.KubernetesMockServer;
import io.fabric8.mockwebserver.Context;
import io.fabric8.mockwebserver.MockWebServer;
import java.net.InetAddress;
import java.util.HashMap;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;

/**
 * The embedded API server: fabric8's mock in CRUD mode over HTTPS on loopback, behind the {@link
 * SandboxDispatcher}, with the CRDs and the system namespace installed.
 */
public final class SandboxServer implements AutoCloseable {
  // The mock server logs every request at INFO; a person reading the sandbox wants the story.
  // Held strongly: java.util.logging forgets a level set on a logger that was garbage-collected.
  private static final java.util.logging.Logger MOCK_LOG =
      java.util.logging.Logger.getLogger("io.fabric8.mockwebserver");

  private final KubernetesMockServer server;
  private final SandboxDispatcher dispatcher;
  private final KubernetesClient client;
  private final List<String> refusals = new CopyOnWriteArrayList<>();

  private SandboxServer(EngineRegistry engines, int port) {
    MOCK_LOG.setLevel(java.util.logging.Level.WARNING);
    ResourceCatalog catalog = new ResourceCatalog();
    dispatcher =
        new SandboxDispatcher(new KubernetesCrudDispatcher(), catalog, engines, refusals::add);
    server =
        new KubernetesMockServer(
            new Context(), new MockWebServer(), new HashMap<>(), dispatcher, true);
    server.init(InetAddress.getLoopbackAddress(), port);
    dispatcher.serverAddress("127.0.0.1:" + server.getPort());
    Config config = server.createClient().getConfiguration();
    config.setRequestTimeout(30_000);
    client =
        new KubernetesClientBuilder()
            .withConfig(config)
            .withKubernetesSerialization(KvCacheSerialization.create())
            .build();
    for (JsonNode crd : catalog.crds()) {
      client
          .apiextensions()
          .v1()
          .customResourceDefinitions()
          .resource(
              client.getKubernetesSerialization().convertValue(crd, CustomResourceDefinition.class))
          .create();
    }
    client
        .namespaces()
        .resource(
            new NamespaceBuilder()
                .withNewMetadata()
                .withName("gpustack-system")
                .endMetadata()
                .build())
        .create();
  }

  /** Starts on {@code port} (0 picks a free one). */
  public static SandboxServer start(EngineRegistry engines, int port) {
    return new SandboxServer(engines, port);
  }

  /**
   * Turns the admission chain off or on: what a cluster without the webhook stores, or objects
   * stored before an upgrade, can then be written.
   */
  public void admission(boolean on) {
    dispatcher.admission(on);
  }

  /**
   * From now on, the method, path and user agent of every request, as the API server's audit log
   * would have them: {@code "GET /api/v1/pods?watch=true kvcache-operator"}.
   */
  public List<String> audit() {
    List<String> log = new CopyOnWriteArrayList<>();
    dispatcher.record(
        r ->
            log.add(
                r.method()
                    + " "
                    + r.getPath()
                    + " "
                    + r.getHeaders().toMultimap().entrySet().stream()
                        .filter(e -> e.getKey().equalsIgnoreCase("User-Agent"))
                        .flatMap(e -> e.getValue().stream())
                        .findFirst()
                        .orElse("")));
    return log;
  }

  /** A client with the project's serialization. */
  public KubernetesClient client() {
    return client;
  }

  public int port() {
    return server.getPort();
  }

  /** Every refusal the admission chain answered, in order. */
  public List<String> refusals() {
    return refusals;
  }

  /** A kubeconfig for {@code kubectl} and other clients. */
  public String kubeconfig() {
    return String.join(
        "\n",
        "apiVersion: v1",
        "kind: Config",
        "clusters:",
        "- name: kvcache-sandbox",
        "  cluster:",
        "    server: https://127.0.0.1:" + port(),
        "    insecure-skip-tls-verify: true",
        "users:",
        "- name: kvcache-sandbox",
        "  user:",
        "    token: sandbox",
        "contexts:",
        "- name: kvcache-sandbox",
        "  context:",
        "    cluster: kvcache-sandbox",
        "    user: kvcache-sandbox",
        "    namespace: default",
        "current-context: kvcache-sandbox",
        "");
  }

  @Override
  public void close() {
    client.close();
    server.destroy();
  }
}
