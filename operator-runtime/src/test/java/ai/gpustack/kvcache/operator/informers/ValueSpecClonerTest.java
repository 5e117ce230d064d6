package ai.gpustack.kvcache.operator.informers;

import static org.assertj.core.api.Assertions.assertThat;

import ai.gpustack.kvcache.api.ModelDeploymentStatus;
import ai.gpustack.kvcache.operator.TestObjects;
import ai.gpustack.kvcache.resources.KVCachePoolBinding;
import ai.gpustack.kvcache.resources.KvCacheSerialization;
import ai.gpustack.kvcache.resources.ModelDeployment;
import io.fabric8.kubernetes.api.model.HasMetadata;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.PodBuilder;
import io.fabric8.kubernetes.client.utils.KubernetesSerialization;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

class ValueSpecClonerTest {
  final KubernetesSerialization json = KvCacheSerialization.create();
  final ValueSpecCloner cloner = new ValueSpecCloner(json);

  @Test
  void a_copy_serializes_as_the_original_and_changing_its_metadata_leaves_the_original_alone() {
    List<HasMetadata> objects =
        TestObjects.objects(
            TestObjects.store("team-a", "chat")
                + """
                ---
                apiVersion: worker.gpustack.ai/v1
                kind: ModelDeployment
                metadata:
                  name: chat-vllm
                  namespace: team-a
                  labels: {team: a}
                  finalizers: [kvcache.gpustack.ai/release]
                  ownerReferences: [{apiVersion: v1, kind: ConfigMap, name: owner, uid: u1}]
                spec:
                  model: {name: org/model}
                  engine: {name: vllm, version: 0.11.0}
                  kvCache: {poolRef: {name: chat}}
                  roles: [{name: server, replicas: 2}]
                """);
    ModelDeployment md = (ModelDeployment) objects.get(objects.size() - 1);
    md.setStatus(ModelDeploymentStatus.builder().phase("Ready").build());
    for (HasMetadata original : objects) {
      String before = json.asJson(original);
      HasMetadata copy = cloner.clone(original);
      assertThat(copy).isNotSameAs(original).hasSameClassAs(original);
      assertThat(json.asJson(copy)).isEqualTo(before);
      copy.getMetadata().setName("renamed");
      copy.getMetadata().setLabels(Map.of("other", "x"));
      copy.getMetadata().setFinalizers(List.of());
      assertThat(json.asJson(original)).isEqualTo(before);
    }
    ModelDeployment copy = cloner.clone(md);
    copy.getMetadata().getOwnerReferences().get(0).setName("changed");
    assertThat(md.getMetadata().getOwnerReferences().get(0).getName()).isEqualTo("owner");
    copy.setStatus(ModelDeploymentStatus.builder().phase("Progressing").build());
    assertThat(md.getStatus().phase()).contains("Ready");
    assertThat(objects).anyMatch(KVCachePoolBinding.class::isInstance);
  }

  @Test
  void any_other_kind_is_copied_whole() {
    Pod pod =
        new PodBuilder()
            .withNewMetadata()
            .withName("p")
            .endMetadata()
            .withNewSpec()
            .addNewContainer()
            .withName("main")
            .withArgs("a")
            .endContainer()
            .endSpec()
            .build();
    Pod copy = cloner.clone(pod);
    copy.getSpec().getContainers().get(0).getArgs().add("b");
    assertThat(pod.getSpec().getContainers().get(0).getArgs()).containsExactly("a");
  }
}
