package ai.gpustack.kvcache.operator.informers;

import static org.assertj.core.api.Assertions.assertThat;

import ai.gpustack.kvcache.observe.DtypeObserver;
import ai.gpustack.kvcache.resources.Keys;
import ai.gpustack.kvcache.resources.KvCacheSerialization;
import ai.gpustack.kvcache.resources.Pods;
import io.fabric8.kubernetes.api.model.ObjectMeta;
import io.fabric8.kubernetes.api.model.OwnerReferenceBuilder;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.client.utils.KubernetesSerialization;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.Test;

class CachedPodTest {
  final KubernetesSerialization json = KvCacheSerialization.create();

  /** A replica the operator rendered, as kube-apiserver v1.36.3 serves it once KWOK ran it. */
  Pod served() throws Exception {
    Pod pod =
        json.unmarshal(
            Files.readString(Path.of("src/test/resources/informers/kwok-replica-v1.36.3.json")),
            Pod.class);
    pod.getMetadata()
        .setOwnerReferences(
            List.of(
                new OwnerReferenceBuilder()
                    .withApiVersion("worker.gpustack.ai/v1")
                    .withKind("ModelDeployment")
                    .withName("md-0000")
                    .withUid("u-1")
                    .withController(true)
                    .build()));
    return pod;
  }

  @Test
  void the_kept_part_answers_every_question_the_operator_asks_of_a_replica() throws Exception {
    Pod pod = served();
    Pod kept = CachedPod.of(pod);
    assertThat(Pods.ready(kept)).isTrue().isEqualTo(Pods.ready(pod));
    assertThat(Pods.hash(kept)).isEqualTo(Pods.hash(pod)).isPresent();
    assertThat(Pods.ordinal(kept)).isEqualTo(Pods.ordinal(pod)).isZero();
    assertThat(Pods.role(kept)).isEqualTo(Pods.role(pod)).isEqualTo("server");
    assertThat(Pods.annotation(kept, Keys.CLIENT_CONFIG))
        .isEqualTo(Pods.annotation(pod, Keys.CLIENT_CONFIG));
    assertThat(DtypeObserver.argv(kept))
        .isEqualTo(DtypeObserver.argv(pod))
        .containsSubsequence("--kv-cache-dtype", "bfloat16");
    assertThat(kept.getMetadata().getOwnerReferences())
        .isEqualTo(pod.getMetadata().getOwnerReferences());
    assertThat(kept.getMetadata())
        .extracting(m -> m.getName(), m -> m.getNamespace(), m -> m.getUid())
        .containsExactly(
            pod.getMetadata().getName(),
            pod.getMetadata().getNamespace(),
            pod.getMetadata().getUid());
    assertThat(kept.getMetadata().getResourceVersion())
        .isEqualTo(pod.getMetadata().getResourceVersion());
    assertThat(kept.getStatus().getPhase()).isEqualTo("Running");
  }

  @Test
  void replicas_decoded_apart_keep_one_copy_of_what_they_repeat() throws Exception {
    Pod one = CachedPod.of(served());
    Pod other = CachedPod.of(served());
    List<String> argv = DtypeObserver.argv(one);
    List<String> otherArgv = DtypeObserver.argv(other);
    assertThat(argv).contains("--kv-cache-dtype").isEqualTo(otherArgv);
    for (int i = 0; i < argv.size(); i++) {
      assertThat(argv.get(i)).isSameAs(otherArgv.get(i));
    }
    assertThat(Pods.hash(one).orElseThrow()).isSameAs(Pods.hash(other).orElseThrow());
  }

  @Test
  void a_terminating_replica_stays_terminating_and_not_ready() throws Exception {
    Pod pod = served();
    pod.getMetadata().setDeletionTimestamp("2026-12-04T22:00:00Z");
    Pod kept = CachedPod.of(pod);
    assertThat(kept.getMetadata().getDeletionTimestamp()).isEqualTo("2026-12-04T22:00:00Z");
    assertThat(Pods.ready(kept)).isFalse();
  }

  @Test
  void what_the_api_server_and_the_kubelet_add_is_not_kept() throws Exception {
    Pod pod = served();
    assertThat(pod.getMetadata().getManagedFields()).hasSize(2);
    Pod kept = CachedPod.of(pod);
    assertThat(kept.getMetadata().getManagedFields()).isEmpty();
    assertThat(kept.getSpec().getVolumes()).isEmpty();
    assertThat(kept.getSpec().getTolerations()).isEmpty();
    assertThat(kept.getStatus().getContainerStatuses()).isEmpty();
    assertThat(kept.getSpec().getContainers())
        .singleElement()
        .satisfies(
            c -> {
              assertThat(c.getName()).isEqualTo("main");
              assertThat(c.getEnv()).isEmpty();
              assertThat(c.getImage()).isNull();
              assertThat(c.getSecurityContext()).isNull();
            });
    assertThat(kept.getStatus().getConditions())
        .extracting(c -> c.getType())
        .containsExactly("Ready");
    assertThat(json.asJson(kept).length()).isLessThan(json.asJson(pod).length() * 2 / 5);
  }

  @Test
  void a_pod_with_neither_spec_nor_status_is_kept_as_it_is() {
    Pod bare = new Pod();
    bare.setMetadata(new ObjectMeta());
    bare.getMetadata().setName("p");
    Pod kept = CachedPod.of(bare);
    assertThat(kept.getMetadata().getName()).isEqualTo("p");
    assertThat(kept.getSpec()).isNull();
    assertThat(kept.getStatus()).isNull();
    assertThat(Pods.ready(kept)).isFalse();
  }
}
