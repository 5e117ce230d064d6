package ai.gpustack.kvcache.operator;

import static org.assertj.core.api.Assertions.assertThat;

import ai.gpustack.kvcache.api.EffectiveSettings;
import ai.gpustack.kvcache.api.Settings;
import ai.gpustack.kvcache.cluster.InformerClusterView;
import ai.gpustack.kvcache.cluster.MemoryOnly;
import ai.gpustack.kvcache.resources.KvCacheSerialization;
import ai.gpustack.kvcache.resources.Setting;
import ai.gpustack.kvcache.sandbox.SandboxServer;
import ai.gpustack.kvcache.spi.EngineRegistry;
import io.fabric8.kubernetes.client.Config;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.KubernetesClientBuilder;
import java.time.Duration;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * The webhook's view: the Settings read once per change rather than per review, and reads past the
 * cache made only where the caller may wait.
 */
class InformerClusterViewIT {
  SandboxServer server;
  KubernetesClient client;
  InformerClusterView view;

  @BeforeEach
  void start() {
    server = SandboxServer.start(EngineRegistry.load(), 0);
    client =
        new KubernetesClientBuilder()
            .withConfig(Config.fromKubeconfig(server.kubeconfig()))
            .withKubernetesSerialization(KvCacheSerialization.create())
            .build();
    view = InformerClusterView.start(client);
  }

  @AfterEach
  void stop() {
    view.close();
    client.close();
    server.close();
  }

  @Test
  void a_setting_written_or_deleted_is_read_by_the_next_review() {
    String name = Settings.KV_CACHE_DTYPE_OWNED.name();
    TestObjects.await("the caches synced", Duration.ofSeconds(30), view::synced);
    EffectiveSettings defaults = view.settings();
    assertThat(defaults.kvCacheDtypeOwned()).isTrue();
    assertThat(view.settings()).isSameAs(defaults);

    TestObjects.apply(
        client,
        """
        apiVersion: gpustack.ai/v1
        kind: Setting
        metadata: {name: %s, namespace: %s}
        spec: {value: "false"}
        """
            .formatted(name, Settings.NAMESPACE));
    TestObjects.await("the Setting turned off read", Duration.ofSeconds(10), () -> !owned(view));

    TestObjects.setting(client, name, "true");
    TestObjects.await("the Setting turned on read", Duration.ofSeconds(10), () -> owned(view));

    TestObjects.setting(client, name, "false");
    TestObjects.await(
        "the Setting turned off again read", Duration.ofSeconds(10), () -> !owned(view));

    client.resources(Setting.class).inNamespace(Settings.NAMESPACE).withName(name).delete();
    TestObjects.await(
        "the default read once the Setting is gone", Duration.ofSeconds(10), () -> owned(view));
  }

  @Test
  void a_read_the_cache_cannot_answer_waits_only_where_the_caller_may_wait() {
    TestObjects.apply(client, TestObjects.STORE);
    TestObjects.await(
        "the pool and the Binding cached",
        Duration.ofSeconds(30),
        () ->
            MemoryOnly.attempt(() -> view.pool("shared")).isPresent()
                && MemoryOnly.attempt(() -> view.binding("ns", "chat")).isPresent());
    assertThat(MemoryOnly.attempt(() -> view.binding("ns", "chat")))
        .as("a cached Binding, in memory")
        .hasValueSatisfying(b -> assertThat(b).isPresent());

    assertThat(MemoryOnly.attempt(() -> view.pool("elsewhere")))
        .as("a pool the cache lacks is not read in memory")
        .isEmpty();
    assertThat(view.pool("elsewhere")).as("read from the API server: missing").isEmpty();
  }

  private static boolean owned(InformerClusterView view) {
    return view.settings().kvCacheDtypeOwned();
  }
}
