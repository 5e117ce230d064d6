package ai.gpustack.kvcache.operator.reconcile;

import static org.assertj.core.api.Assertions.assertThat;

import ai.gpustack.kvcache.api.WorkloadRef;
import ai.gpustack.kvcache.operator.TestObjects;
import ai.gpustack.kvcache.resources.KVCachePoolBinding;
import ai.gpustack.kvcache.resources.KvCacheSerialization;
import ai.gpustack.kvcache.sandbox.Faults;
import ai.gpustack.kvcache.sandbox.SandboxServer;
import ai.gpustack.kvcache.spi.EngineRegistry;
import io.fabric8.kubernetes.client.Config;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.KubernetesClientBuilder;
import io.fabric8.kubernetes.client.dsl.base.PatchContext;
import io.fabric8.kubernetes.client.dsl.base.PatchType;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.stream.IntStream;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/** Claims on one Binding, made at once by many deployments' reconciles. */
class ClaimsIT {
  static final int CLAIMANTS = 24;

  SandboxServer server;
  KubernetesClient client;

  @BeforeEach
  void start() {
    server = SandboxServer.start(EngineRegistry.load(), 0);
    TestObjects.apply(server.client(), TestObjects.store("team-a", "chat"));
    Config config = Config.fromKubeconfig(server.kubeconfig());
    config.setUserAgent("claims-test");
    client =
        new KubernetesClientBuilder()
            .withConfig(config)
            .withKubernetesSerialization(KvCacheSerialization.create())
            .build();
  }

  @AfterEach
  void stop() {
    client.close();
    server.close();
  }

  KVCachePoolBinding chat() {
    return client.resources(KVCachePoolBinding.class).inNamespace("team-a").withName("chat").get();
  }

  static WorkloadRef ref(String name) {
    return WorkloadRef.of("ModelDeployment", "", name);
  }

  @Test
  void concurrent_claims_are_each_stored_once_before_their_caller_returns_in_fewer_writes()
      throws Exception {
    Claims claims = new Claims();
    claims.claim(client, chat(), ref("first"));
    KVCachePoolBinding cached = chat();
    assertThat(cached.getStatus().usedBy()).containsExactly(ref("first"));
    // Every write takes 300 ms, so the claims arriving during one are written together next.
    server.faults(Faults.parse("latency=300ms"));
    List<String> audit = server.audit();
    ExecutorService pool = Executors.newFixedThreadPool(CLAIMANTS);
    CountDownLatch go = new CountDownLatch(1);
    try {
      List<Future<Boolean>> heldOnReturn =
          IntStream.range(0, CLAIMANTS)
              .mapToObj(
                  i ->
                      pool.submit(
                          () -> {
                            go.await();
                            claims.claim(client, cached, ref("md-" + i));
                            return Claims.holds(chat(), ref("md-" + i));
                          }))
              .toList();
      go.countDown();
      for (Future<Boolean> held : heldOnReturn) {
        assertThat(held.get()).as("the claim is stored when its caller returns").isTrue();
      }
    } finally {
      pool.shutdownNow();
    }
    List<WorkloadRef> expected = new ArrayList<>(List.of(ref("first")));
    IntStream.range(0, CLAIMANTS).forEach(i -> expected.add(ref("md-" + i)));
    assertThat(chat().getStatus().usedBy()).containsExactlyInAnyOrderElementsOf(expected);
    long writes =
        List.copyOf(audit).stream()
            .filter(r -> r.startsWith("PATCH ") && r.contains("/kvcachepoolbindings/chat/status"))
            .count();
    assertThat(writes).as("status writes for %d claims", CLAIMANTS).isBetween(1L, 3L);
  }

  @Test
  void a_claim_on_an_empty_list_a_repeated_claim_and_a_release_leave_only_what_is_held() {
    Claims claims = new Claims();
    claims.claim(client, chat(), ref("a"));
    claims.claim(client, chat(), ref("b"));
    claims.claim(client, chat(), ref("a"));
    // a second operator process, during a leader change, appended it again
    client
        .resources(KVCachePoolBinding.class)
        .inNamespace("team-a")
        .withName("chat")
        .subresource("status")
        .patch(
            PatchContext.of(PatchType.JSON),
            "[{\"op\":\"add\",\"path\":\"/status/usedBy/-\",\"value\":"
                + "{\"kind\":\"ModelDeployment\",\"namespace\":\"\",\"name\":\"a\"}}]");
    assertThat(chat().getStatus().usedBy()).containsExactly(ref("a"), ref("b"), ref("a"));
    claims.release(client, "team-a", "chat", ref("a"));
    claims.release(client, "team-a", "chat", ref("missing"));
    assertThat(chat().getStatus().usedBy()).containsExactly(ref("b"));
  }
}
