package ai.gpustack.kvcache.sandbox;

import ai.gpustack.kvcache.resources.KvCacheSerialization;
import ai.gpustack.kvcache.spi.EngineRegistry;
import com.fasterxml.jackson.databind.JsonNode;
import io.fabric8.kubernetes.api.model.NamespaceBuilder;
import io.fabric8.kubernetes.api.model.apiextensions.v1.CustomResourceDefinition;
import io.fabric8.kubernetes.client.Config;
import io.fabric8.kubernetes.client.ConfigBuilder;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.KubernetesClientBuilder;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;

/**
 * The embedded API server: fabric8's CRUD store behind the {@link SandboxDispatcher} and a HTTPS
 * front of its own on loopback, with the CRDs, the system namespace and the examples' namespace
 * installed.
 */
public final class SandboxServer implements AutoCloseable {
  private final SandboxHttp http;
  private final SandboxDispatcher dispatcher;
  private final KubernetesClient client;
  private final List<String> refusals = new CopyOnWriteArrayList<>();

  private SandboxServer(EngineRegistry engines, int port) {
    ResourceCatalog catalog = new ResourceCatalog();
    WatchHub hub = new WatchHub(catalog);
    Store store = new Store(hub);
    dispatcher = new SandboxDispatcher(store, hub, catalog, engines, refusals::add);
    http = new SandboxHttp(dispatcher, port);
    http.watches(new WatchStream(http.vertx(), hub, catalog, store::everything));
    dispatcher.serverAddress("127.0.0.1:" + http.port());
    Config config =
        new ConfigBuilder()
            .withMasterUrl("https://127.0.0.1:" + http.port())
            .withTrustCerts(true)
            .withOauthToken("sandbox")
            .withNamespace("default")
            .withRequestTimeout(30_000)
            .withUserAgent(Faults.EXEMPT_AGENT)
            .build();
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
    for (String namespace : List.of("default", "gpustack-system")) {
      client
          .namespaces()
          .resource(
              new NamespaceBuilder().withNewMetadata().withName(namespace).endMetadata().build())
          .create();
    }
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
   * Whether the webhook Service has a Ready endpoint, as a first install sees it: until {@code
   * ready} answers true, a write a {@code failurePolicy: Fail} webhook selects fails with the API
   * server's "no endpoints available" error.
   */
  public void webhookEndpoints(java.util.function.BooleanSupplier ready) {
    dispatcher.webhookEndpoints(ready);
  }

  /**
   * From now on, the method, path and user agent of every request, as the API server's audit log
   * would have them: {@code "GET /api/v1/pods?watch=true kvcache-operator"}. A synchronized list:
   * iterate a copy ({@code List.copyOf}) while requests may still arrive.
   */
  public List<String> audit() {
    // Not copy-on-write: a copy of the whole log per request made a fleet benchmark's API server
    // quadratic in its request count.
    List<String> log = java.util.Collections.synchronizedList(new java.util.ArrayList<>());
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

  /**
   * From now on, answers the requests of every client but the sandbox's own with {@code faults}
   * ({@link Faults#none()} to stop).
   */
  public void faults(Faults faults) {
    http.faults(faults);
  }

  /** The faults in force, with what they injected so far. */
  public Faults faults() {
    return http.faults();
  }

  /** A client with the project's serialization; its requests never see faults. */
  public KubernetesClient client() {
    return client;
  }

  public int port() {
    return http.port();
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
    http.close();
  }
}
