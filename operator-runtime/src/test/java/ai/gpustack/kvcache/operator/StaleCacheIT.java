package ai.gpustack.kvcache.operator;

import static org.assertj.core.api.Assertions.assertThat;

import ai.gpustack.kvcache.admission.Admission;
import ai.gpustack.kvcache.admission.Decision;
import ai.gpustack.kvcache.admission.Request;
import ai.gpustack.kvcache.admission.Route;
import ai.gpustack.kvcache.cluster.InformerClusterView;
import ai.gpustack.kvcache.resources.KvCacheSerialization;
import ai.gpustack.kvcache.sandbox.SandboxServer;
import ai.gpustack.kvcache.spi.EngineRegistry;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import com.fasterxml.jackson.dataformat.yaml.YAMLFactory;
import io.fabric8.kubernetes.client.Config;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.KubernetesClientBuilder;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.time.ZoneOffset;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.Test;

/**
 * The webhook once its caches lose the API server: it refuses what it cannot vouch for (injecting a
 * Pod, creating a deployment or a Binding) and admits what reads nothing (a deletion finishing, a
 * Binding update), so a Binding's deletion is never blocked.
 */
class StaleCacheIT {
  static final ObjectMapper YAML = new ObjectMapper(new YAMLFactory());

  static final String POD =
      """
      apiVersion: v1
      kind: Pod
      metadata:
        name: p
        namespace: team-a
        labels: {kvcache.gpustack.ai/inject: "true"}
        annotations: {kvcache.gpustack.ai/binding: chat, kvcache.gpustack.ai/engine: vLLM}
      spec:
        containers: [{name: vllm, image: vllm/vllm-openai:v0.11.0, command: [vllm], args: [serve, m]}]
      """;

  static final String MD =
      """
      apiVersion: worker.gpustack.ai/v1
      kind: ModelDeployment
      metadata: {name: md, namespace: team-a, finalizers: [worker.gpustack.ai/model-deployment]}
      spec:
        model: {name: m}
        engine: {name: vLLM}
        kvCache: {poolRef: {name: chat}}
        roles: [{name: server}]
      """;

  static final String BINDING =
      """
      apiVersion: worker.gpustack.ai/v1
      kind: KVCachePoolBinding
      metadata: {name: other, namespace: team-a, finalizers: [worker.gpustack.ai/kv-cache-pool-binding]}
      spec: {poolRef: {name: shared}, domain: {name: other, blockSize: 16, dtype: bfloat16}, quota: {ceiling: 1Gi}}
      """;

  @Test
  void a_stale_webhook_refuses_what_it_cannot_vouch_for_and_never_blocks_a_deletion()
      throws Exception {
    SandboxServer server = SandboxServer.start(EngineRegistry.load(), 0);
    TestObjects.apply(server.client(), TestObjects.store("team-a", "chat"));
    AtomicReference<Instant> now = new AtomicReference<>(Instant.parse("2026-12-02T00:00:00Z"));
    Clock clock =
        new Clock() {
          @Override
          public java.time.ZoneId getZone() {
            return ZoneOffset.UTC;
          }

          @Override
          public Clock withZone(java.time.ZoneId zone) {
            return this;
          }

          @Override
          public Instant instant() {
            return now.get();
          }
        };
    Config config = Config.fromKubeconfig(server.kubeconfig());
    config.setUserAgent("kvcache-webhook");
    try (KubernetesClient client =
            new KubernetesClientBuilder()
                .withConfig(config)
                .withKubernetesSerialization(KvCacheSerialization.create())
                .build();
        InformerClusterView view =
            InformerClusterView.start(client, InformerClusterView.STALE_AFTER, clock)) {
      TestObjects.await("the caches synced", Duration.ofSeconds(30), view::synced);
      Admission admission = new Admission(EngineRegistry.load(), view);
      assertThat(decide(admission, Route.POD_INJECTION, "CREATE", POD, null).allowed()).isTrue();

      server.close();
      TestObjects.await(
          "the informers to lose their watches", Duration.ofSeconds(30), () -> !view.watching());
      // Lost, but for less than the grace a reconnect gets: still vouched for.
      now.set(now.get().plusSeconds(5));
      assertThat(decide(admission, Route.POD_INJECTION, "CREATE", POD, null).allowed()).isTrue();

      now.set(now.get().plus(InformerClusterView.STALE_AFTER));
      Decision pod = decide(admission, Route.POD_INJECTION, "CREATE", POD, null);
      assertThat(pod.allowed()).isFalse();
      assertThat(pod.code()).isEqualTo(503);
      assertThat(pod.message())
          .startsWith(
              "Pod \"p\" cannot be checked now: the webhook has not heard from the API server for 3")
          .contains("it is refused rather than admitted unchecked");
      assertThat(decide(admission, Route.MODEL_DEPLOYMENT, "CREATE", MD, null).allowed()).isFalse();
      assertThat(decide(admission, Route.KV_CACHE_POOL_BINDING, "CREATE", BINDING, null).allowed())
          .isFalse();

      // Finishing a deletion reads nothing: the finalizer comes off.
      String deleting = "metadata: {deletionTimestamp: \"2026-12-02T00:00:00Z\", finalizers: []}";
      assertThat(
              decide(admission, Route.MODEL_DEPLOYMENT, "UPDATE", merge(MD, deleting), MD)
                  .allowed())
          .isTrue();
      assertThat(
              decide(
                      admission,
                      Route.KV_CACHE_POOL_BINDING,
                      "UPDATE",
                      merge(BINDING, deleting),
                      BINDING)
                  .allowed())
          .isTrue();
    }
  }

  private static Decision decide(
      Admission admission, Route route, String operation, String object, String old)
      throws Exception {
    JsonNode o = YAML.readTree(object);
    return admission.decide(
        route,
        new Request(
            "uid",
            o.path("kind").asText(),
            operation,
            o.path("metadata").path("namespace").asText(),
            o.path("metadata").path("name").asText(),
            o,
            old == null ? null : YAML.readTree(old)));
  }

  private static String merge(String object, String patch) throws Exception {
    ObjectNode o = (ObjectNode) YAML.readTree(object);
    JsonNode p = YAML.readTree(patch);
    ObjectNode meta = (ObjectNode) o.path("metadata");
    p.path("metadata").properties().forEach(e -> meta.set(e.getKey(), e.getValue()));
    return YAML.writeValueAsString(o);
  }
}
