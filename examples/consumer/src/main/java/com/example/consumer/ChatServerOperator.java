package com.example.consumer;

import ai.gpustack.kvcache.admission.Admission;
import ai.gpustack.kvcache.admission.Route;
import ai.gpustack.kvcache.cluster.CachedClusterView;
import ai.gpustack.kvcache.resources.KvCacheSerialization;
import ai.gpustack.kvcache.spi.EngineRegistry;
import ai.gpustack.kvcache.webhook.ReloadingKeyManager;
import ai.gpustack.kvcache.webhook.WebhookServer;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.KubernetesClientBuilder;
import io.javaoperatorsdk.operator.Operator;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import java.io.IOException;
import java.net.InetSocketAddress;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.CountDownLatch;

/**
 * A Java Operator SDK operator for {@link ChatServer} that embeds gpustack-kvcache: its reconciler
 * renders through the library, and the library's Pod-injection webhook runs in the same process
 * over the reconciler's informer caches, on this operator's key material and meter registry.
 */
public final class ChatServerOperator implements AutoCloseable {
  private final Operator operator;
  private final Admission admission;
  private WebhookServer webhook;

  private ChatServerOperator(Operator operator, Admission admission) {
    this.operator = operator;
    this.admission = admission;
  }

  /**
   * Registers the reconciler on {@code client} and starts it; no webhook yet. The client must use
   * {@code KvCacheSerialization.create()}: the library's resources hold {@code Optional} fields.
   */
  public static ChatServerOperator start(KubernetesClient client, EngineRegistry engines) {
    Operator operator =
        new Operator(
            o ->
                o.withKubernetesClient(client)
                    .withUseSSAToPatchPrimaryResource(false)
                    .withSSABasedCreateUpdateMatchForDependentResources(false)
                    .withCloseClientOnStop(false));
    ChatServerReconciler reconciler = new ChatServerReconciler(engines);
    operator.register(reconciler);
    operator.start();
    return new ChatServerOperator(
        operator, new Admission(engines, CachedClusterView.over(reconciler.caches())));
  }

  /** The admission rules over this operator's caches: what the embedded webhook answers with. */
  public Admission admission() {
    return admission;
  }

  /** Serves Pod injection on {@code address} with the certificate in {@code cert}/{@code key}. */
  public WebhookServer serveWebhook(InetSocketAddress address, Path cert, Path key)
      throws IOException {
    webhook =
        WebhookServer.builder()
            .address(address)
            .keys(new ReloadingKeyManager(cert, key))
            .admission(admission)
            .routes(List.of(Route.POD_INJECTION))
            .meterRegistry(new SimpleMeterRegistry())
            .start();
    return webhook;
  }

  @Override
  public void close() {
    if (webhook != null) {
      webhook.close();
    }
    operator.stop();
  }

  /** {@code ChatServerOperator CERT KEY}: against the current kubeconfig, webhook on :9443. */
  public static void main(String[] args) throws Exception {
    KubernetesClient client =
        new KubernetesClientBuilder()
            .withKubernetesSerialization(KvCacheSerialization.create())
            .build();
    try (ChatServerOperator operator = start(client, EngineRegistry.load())) {
      operator.serveWebhook(new InetSocketAddress(9443), Path.of(args[0]), Path.of(args[1]));
      new CountDownLatch(1).await();
    }
  }
}
