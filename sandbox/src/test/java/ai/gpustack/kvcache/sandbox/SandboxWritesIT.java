package ai.gpustack.kvcache.sandbox;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import ai.gpustack.kvcache.api.KVCachePoolBindingStatus;
import ai.gpustack.kvcache.api.WorkloadRef;
import ai.gpustack.kvcache.cluster.Manifests;
import ai.gpustack.kvcache.resources.KVCachePoolBinding;
import ai.gpustack.kvcache.spi.EngineRegistry;
import io.fabric8.kubernetes.api.model.ConfigMap;
import io.fabric8.kubernetes.api.model.ConfigMapBuilder;
import io.fabric8.kubernetes.api.model.HasMetadata;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.KubernetesClientException;
import io.fabric8.kubernetes.client.dsl.Resource;
import io.fabric8.kubernetes.client.dsl.base.PatchContext;
import io.fabric8.kubernetes.client.dsl.base.PatchType;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/** Writes to the sandbox's API server obey the API server's concurrency rules. */
class SandboxWritesIT {
  SandboxServer server;
  KubernetesClient client;

  @BeforeEach
  void start() {
    server = SandboxServer.start(EngineRegistry.load(), 0);
    client = server.client();
    // The examples' backend, pool and Bindings, which the sandbox applies too.
    for (HasMetadata o :
        Manifests.objects(
            List.of(
                Path.of("../examples/sandbox/00-backend.yaml"),
                Path.of("../examples/sandbox/01-pool.yaml"),
                Path.of("../examples/sandbox/02-bindings.yaml")))) {
      client.resource(o).create();
    }
  }

  @AfterEach
  void stop() {
    server.close();
  }

  Resource<KVCachePoolBinding> chatBinding() {
    return client.resources(KVCachePoolBinding.class).inNamespace("team-a").withName("chat");
  }

  KVCachePoolBinding chat() {
    return chatBinding().get();
  }

  /** Applies a JSON Patch to Binding team-a/chat's status, as the operator's claims do. */
  KVCachePoolBinding patchChatStatus(String jsonPatch) {
    return chatBinding().subresource("status").patch(PatchContext.of(PatchType.JSON), jsonPatch);
  }

  @Test
  void a_put_with_a_stale_resource_version_is_a_conflict() {
    KVCachePoolBinding first = chat();
    KVCachePoolBinding second = chat();
    first.setStatus(KVCachePoolBindingStatus.builder().phase("Bound").build());
    client.resource(first).updateStatus();
    second.setStatus(KVCachePoolBindingStatus.builder().phase("Lost").build());
    assertThatThrownBy(() -> client.resource(second).updateStatus())
        .isInstanceOfSatisfying(
            KubernetesClientException.class, e -> assertThat(e.getCode()).isEqualTo(409))
        .hasMessageContaining("the object has been modified");
    assertThat(chat().getStatus().phase()).contains("Bound");
  }

  @Test
  void
      a_write_that_changes_nothing_keeps_the_version_and_only_a_spec_change_moves_the_generation() {
    KVCachePoolBinding before = chat();
    String version = before.getMetadata().getResourceVersion();
    long generation = before.getMetadata().getGeneration();

    KVCachePoolBinding same = client.resource(before).update();
    assertThat(same.getMetadata().getResourceVersion()).isEqualTo(version);

    KVCachePoolBinding claimed =
        patchChatStatus(
            "[{\"op\":\"add\",\"path\":\"/status\",\"value\":{\"usedBy\":"
                + "[{\"kind\":\"ModelDeployment\",\"namespace\":\"\",\"name\":\"a\"}]}}]");
    assertThat(claimed.getMetadata().getResourceVersion()).isNotEqualTo(version);
    assertThat(claimed.getMetadata().getGeneration()).isEqualTo(generation);

    KVCachePoolBinding labelled =
        chatBinding()
            .edit(
                b -> {
                  b.getMetadata().setLabels(java.util.Map.of("team", "a"));
                  return b;
                });
    assertThat(labelled.getMetadata().getGeneration()).isEqualTo(generation);

    KVCachePoolBinding resized =
        chatBinding()
            .patch(
                PatchContext.of(PatchType.JSON_MERGE),
                "{\"spec\":{\"quota\":{\"ceiling\":\"512Gi\"}}}");
    assertThat(resized.getMetadata().getGeneration()).isEqualTo(generation + 1);
    assertThat(resized.getStatus().usedBy()).extracting(WorkloadRef::name).containsExactly("a");
  }

  @Test
  void concurrent_json_patch_appends_to_a_status_list_all_land() throws Exception {
    KVCachePoolBinding binding = chat();
    binding.setStatus(KVCachePoolBindingStatus.builder().build().withUsedBy(List.of()));
    client.resource(binding).updateStatus();
    ExecutorService pool = Executors.newFixedThreadPool(8);
    try {
      List<Future<KVCachePoolBinding>> writes =
          java.util.stream.IntStream.range(0, 40)
              .mapToObj(
                  i ->
                      pool.submit(
                          () ->
                              patchChatStatus(
                                  "[{\"op\":\"add\",\"path\":\"/status/usedBy/-\",\"value\":"
                                      + "{\"kind\":\"ModelDeployment\",\"namespace\":\"\","
                                      + "\"name\":\"md-"
                                      + i
                                      + "\"}}]")))
              .toList();
      for (Future<KVCachePoolBinding> w : writes) {
        w.get();
      }
    } finally {
      pool.shutdownNow();
    }
    assertThat(chat().getStatus().usedBy())
        .hasSize(40)
        .contains(WorkloadRef.of("ModelDeployment", "", "md-0"))
        .contains(WorkloadRef.of("ModelDeployment", "", "md-39"));
  }

  @Test
  void a_failed_json_patch_test_changes_nothing() {
    KVCachePoolBinding binding = chat();
    binding.setStatus(
        KVCachePoolBindingStatus.builder()
            .build()
            .withUsedBy(List.of(WorkloadRef.of("ModelDeployment", "", "a"))));
    client.resource(binding).updateStatus();
    assertThatThrownBy(
            () ->
                patchChatStatus(
                    "[{\"op\":\"test\",\"path\":\"/status/usedBy/0/name\",\"value\":\"b\"},"
                        + "{\"op\":\"remove\",\"path\":\"/status/usedBy/0\"}]"))
        .isInstanceOfSatisfying(
            KubernetesClientException.class, e -> assertThat(e.getCode()).isEqualTo(422));
    assertThat(chat().getStatus().usedBy()).hasSize(1);
  }

  @Test
  void one_name_in_several_namespaces_and_kinds_reads_and_writes_each_object() {
    for (String namespace : List.of("team-a", "team-b")) {
      client
          .configMaps()
          .resource(
              new ConfigMapBuilder()
                  .withNewMetadata()
                  .withName("chat")
                  .withNamespace(namespace)
                  .endMetadata()
                  .addToData("team", namespace)
                  .build())
          .create();
    }
    // Relabelling changes the store's key for the object; its name stays findable.
    client.configMaps().inNamespace("team-b").withName("chat").edit(c -> relabel(c, "x"));
    client.configMaps().inNamespace("team-a").withName("chat").delete();

    assertThat(client.configMaps().inNamespace("team-a").withName("chat").get()).isNull();
    ConfigMap teamB = client.configMaps().inNamespace("team-b").withName("chat").get();
    assertThat(teamB.getData()).containsEntry("team", "team-b");
    assertThat(teamB.getMetadata().getLabels()).containsEntry("edited", "x");
    assertThat(chat().getSpec().domain().name()).isNotEmpty();
    assertThat(client.configMaps().inAnyNamespace().withLabel("edited", "x").list().getItems())
        .hasSize(1);
  }

  private static ConfigMap relabel(ConfigMap c, String value) {
    c.getMetadata().setLabels(java.util.Map.of("edited", value));
    return c;
  }
}
