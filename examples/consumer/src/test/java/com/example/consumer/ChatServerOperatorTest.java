package com.example.consumer;

import static org.assertj.core.api.Assertions.assertThat;

import ai.gpustack.kvcache.admission.Decision;
import ai.gpustack.kvcache.admission.Request;
import ai.gpustack.kvcache.admission.Route;
import ai.gpustack.kvcache.resources.KvCacheSerialization;
import ai.gpustack.kvcache.spi.EngineRegistry;
import com.fasterxml.jackson.databind.JsonNode;
import io.fabric8.kubernetes.api.model.HasMetadata;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.server.mock.KubernetesCrudDispatcher;
import io.fabric8.kubernetes.client.server.mock.KubernetesMockServer;
import io.fabric8.kubernetes.client.utils.KubernetesSerialization;
import io.fabric8.mockwebserver.Context;
import io.fabric8.mockwebserver.MockWebServer;
import java.time.Duration;
import java.time.Instant;
import java.util.HashMap;
import java.util.List;
import java.util.function.Supplier;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/** The operator against fabric8's mock API server in CRUD mode. */
class ChatServerOperatorTest {
  static final String CLUSTER =
      """
      apiVersion: worker.gpustack.ai/v1
      kind: KVCacheBackend
      metadata: {name: mooncake}
      spec: {connection: {external: {clientEndpoint: "mooncake-master:50051"}}}
      ---
      apiVersion: worker.gpustack.ai/v1
      kind: KVCachePool
      metadata: {name: shared}
      spec: {backends: [mooncake], quota: {total: 4Ti}}
      ---
      apiVersion: worker.gpustack.ai/v1
      kind: KVCachePoolBinding
      metadata: {name: chat, namespace: team-a}
      spec: {poolRef: {name: shared}, domain: {name: chat, blockSize: 16, dtype: bfloat16}, quota: {ceiling: 1Ti}}
      """;

  static final KubernetesSerialization SERIALIZATION = KvCacheSerialization.create();

  KubernetesMockServer server;
  KubernetesClient client;
  ChatServerOperator operator;

  @BeforeEach
  void start() {
    server =
        new KubernetesMockServer(
            new Context(),
            new MockWebServer(),
            new HashMap<>(),
            new KubernetesCrudDispatcher(List.of()),
            false);
    server.init();
    // our resources' Optional fields need the library's serialization (Jackson's Jdk8Module)
    client = server.createClient(b -> b.withKubernetesSerialization(SERIALIZATION));
    for (String object : CLUSTER.split("(?m)^---$")) {
      HasMetadata resource = SERIALIZATION.unmarshal(object);
      client.resource(resource).create();
    }
    operator = ChatServerOperator.start(client, EngineRegistry.load());
  }

  @AfterEach
  void stop() {
    operator.close();
    client.close();
    server.destroy();
  }

  ChatServer chatServer(String name, List<String> args) {
    ChatServer server = new ChatServer();
    server.getMetadata().setName(name);
    server.getMetadata().setNamespace("team-a");
    ChatServer.Spec spec = new ChatServer.Spec();
    spec.engine = "vLLM";
    spec.engineVersion = "0.11.0";
    spec.model = "qwen/qwen3-8b";
    spec.image = "vllm/vllm-openai:v0.11.0";
    spec.binding = "chat";
    spec.args = args;
    server.setSpec(spec);
    return client.resource(server).create();
  }

  static <T> T await(String what, Supplier<T> found) throws InterruptedException {
    Instant deadline = Instant.now().plus(Duration.ofSeconds(30));
    while (Instant.now().isBefore(deadline)) {
      T value = found.get();
      if (value != null) {
        return value;
      }
      Thread.sleep(100);
    }
    throw new AssertionError("timed out waiting for " + what);
  }

  ChatServer.Status status(String name) {
    ChatServer s = client.resources(ChatServer.class).inNamespace("team-a").withName(name).get();
    return s == null ? null : s.getStatus();
  }

  @Test
  void a_chat_server_runs_the_bindings_dtype_rendered_by_the_library() throws Exception {
    chatServer("small", List.of("--max-num-seqs", "8"));
    Pod pod =
        await(
            "the Pod",
            () -> client.pods().inNamespace("team-a").withName("small-0").get());
    List<String> command = pod.getSpec().getContainers().get(0).getCommand();
    assertThat(command)
        .startsWith("vllm", "serve", "qwen/qwen3-8b")
        .containsSubsequence("--kv-cache-dtype", "bfloat16", "--max-num-seqs", "8");
    assertThat(pod.getSpec().getVolumes()).isNotEmpty();
    ChatServer.Status status = await("an attached status", () -> {
      ChatServer.Status s = status("small");
      return s != null && s.attached ? s : null;
    });
    assertThat(status.argv).isEqualTo(command);
  }

  @Test
  void a_chat_server_passing_the_flag_itself_is_refused_at_its_own_field_path() throws Exception {
    chatServer("own", List.of("--kv-cache-dtype", "fp8"));
    ChatServer.Status status =
        await("a refusal", () -> {
          ChatServer.Status s = status("own");
          return s != null && !s.refusals.isEmpty() ? s : null;
        });
    assertThat(status.attached).isFalse();
    assertThat(status.refusals)
        .singleElement()
        .asString()
        .startsWith(
            "spec.args[0]: Forbidden: the workload passes --kv-cache-dtype while it attaches a KV"
                + " cache pool, but its dtype comes from KVCachePoolBinding \"chat\"");
    assertThat(client.pods().inNamespace("team-a").withName("own-0").get()).isNull();
  }

  @Test
  void the_embedded_webhook_injects_from_the_operators_own_caches() throws Exception {
    String pod =
        """
        {"apiVersion":"v1","kind":"Pod","metadata":{"name":"p","namespace":"team-a",
          "labels":{"kvcache.gpustack.ai/inject":"true"},
          "annotations":{"kvcache.gpustack.ai/binding":"chat","kvcache.gpustack.ai/engine":"vLLM"}},
         "spec":{"containers":[{"name":"main","command":["vllm"],"args":["serve","m"]}]}}
        """;
    JsonNode object = SERIALIZATION.unmarshal(pod, JsonNode.class);
    Decision decision =
        await(
            "the caches to hold the Binding",
            () -> {
              Decision d =
                  operator
                      .admission()
                      .decide(
                          Route.POD_INJECTION,
                          new Request("u1", "Pod", "CREATE", "team-a", "p", object, null));
              return d.allowed() ? d : null;
            });
    assertThat(decision.patch().orElseThrow().toString()).contains("--kv-cache-dtype", "bfloat16");
  }
}
