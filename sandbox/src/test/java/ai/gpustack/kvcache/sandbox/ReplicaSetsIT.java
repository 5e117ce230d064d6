package ai.gpustack.kvcache.sandbox;

import static org.assertj.core.api.Assertions.assertThat;

import ai.gpustack.kvcache.cluster.Manifests;
import ai.gpustack.kvcache.resources.Pods;
import ai.gpustack.kvcache.spi.EngineRegistry;
import io.fabric8.kubernetes.api.model.HasMetadata;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.apps.Deployment;
import io.fabric8.kubernetes.api.model.apps.DeploymentBuilder;
import io.fabric8.kubernetes.api.model.apps.DeploymentCondition;
import io.fabric8.kubernetes.client.KubernetesClient;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.BooleanSupplier;
import org.assertj.core.groups.Tuple;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * The stand-in ReplicaSet: a Deployment gets its Pods through admission, follows scale and template
 * changes, reports refusals, and counts ready Pods in its status as {@code rollout status} reads
 * it.
 */
class ReplicaSetsIT {
  SandboxServer server;
  KubernetesClient client;
  Kubelet kubelet;
  ReplicaSets replicaSets;
  final Map<String, String> failedCreate = new ConcurrentHashMap<>();

  @BeforeEach
  void start() {
    server = SandboxServer.start(EngineRegistry.load(), 0);
    client = server.client();
    for (HasMetadata o :
        Manifests.objects(
            List.of(
                Path.of("../examples/sandbox/00-backend.yaml"),
                Path.of("../examples/sandbox/01-pool.yaml"),
                Path.of("../examples/sandbox/02-bindings.yaml")))) {
      client.resource(o).create();
    }
    kubelet = new Kubelet(client, Duration.ofMillis(50));
    replicaSets =
        new ReplicaSets(
            client,
            Duration.ofMillis(300),
            (d, message) -> failedCreate.put(d.getMetadata().getName(), message));
  }

  @AfterEach
  void stop() {
    replicaSets.close();
    kubelet.close();
    server.close();
  }

  static Deployment deployment(String name, int replicas, String image, String... args) {
    return new DeploymentBuilder()
        .withNewMetadata()
        .withName(name)
        .withNamespace("team-a")
        .endMetadata()
        .withNewSpec()
        .withReplicas(replicas)
        .withNewSelector()
        .addToMatchLabels("app", name)
        .endSelector()
        .withNewTemplate()
        .withNewMetadata()
        .addToLabels("app", name)
        .addToLabels("kvcache.gpustack.ai/inject", "true")
        .addToAnnotations("kvcache.gpustack.ai/binding", "chat")
        .addToAnnotations("kvcache.gpustack.ai/engine", "vLLM")
        .endMetadata()
        .withNewSpec()
        .addNewContainer()
        .withName("vllm")
        .withImage(image)
        .withCommand("vllm")
        .withArgs(args)
        .endContainer()
        .endSpec()
        .endTemplate()
        .endSpec()
        .build();
  }

  List<Pod> pods(String app) {
    return client.pods().inNamespace("team-a").withLabel("app", app).list().getItems();
  }

  Deployment live(String name) {
    return client.apps().deployments().inNamespace("team-a").withName(name).get();
  }

  static void await(BooleanSupplier done, String what) throws InterruptedException {
    long deadline = System.nanoTime() + Duration.ofSeconds(30).toNanos();
    while (!done.getAsBoolean()) {
      assertThat(System.nanoTime()).as(what).isLessThan(deadline);
      Thread.sleep(50);
    }
  }

  boolean rolledOut(String name, int replicas) {
    Deployment d = live(name);
    return d.getStatus() != null
        && d.getStatus().getUpdatedReplicas() != null
        && d.getStatus().getUpdatedReplicas() == replicas
        && d.getStatus().getReplicas() == replicas
        && d.getStatus().getAvailableReplicas() != null
        && d.getStatus().getAvailableReplicas() == replicas
        && d.getStatus().getObservedGeneration() >= d.getMetadata().getGeneration();
  }

  @Test
  void a_deployment_gets_injected_ready_pods_and_a_rolled_out_status() throws Exception {
    client
        .resource(deployment("web", 2, "vllm/vllm-openai:v0.11.0", "serve", "qwen/qwen3-8b"))
        .create();
    await(() -> rolledOut("web", 2), "web rolled out with 2 ready replicas");
    assertThat(pods("web"))
        .extracting(p -> p.getMetadata().getName())
        .containsExactlyInAnyOrder("web-0", "web-1");
    assertThat(pods("web"))
        .allSatisfy(
            p -> assertThat(p.getSpec().getContainers().get(0).getArgs()).contains("bfloat16"));
    assertThat(live("web").getStatus().getConditions())
        .extracting(DeploymentCondition::getType, DeploymentCondition::getReason)
        .containsExactly(
            Tuple.tuple("Available", "MinimumReplicasAvailable"),
            Tuple.tuple("Progressing", "NewReplicaSetAvailable"));
  }

  @Test
  void scale_through_the_scale_subresource_and_a_new_template_replace_the_pods() throws Exception {
    client.resource(deployment("web", 1, "vllm/vllm-openai:v0.11.0", "serve", "m")).create();
    await(() -> rolledOut("web", 1), "web rolled out");
    client.apps().deployments().inNamespace("team-a").withName("web").scale(3);
    await(() -> rolledOut("web", 3), "web scaled to 3");
    assertThat(pods("web")).hasSize(3);
    // The controller writes the Deployment's status meanwhile: an edit that meets a newer version
    // is read again and retried, as kubectl edit's user would.
    for (int attempt = 1; ; attempt++) {
      try {
        client
            .apps()
            .deployments()
            .inNamespace("team-a")
            .withName("web")
            .edit(
                d -> {
                  d.getSpec().getTemplate().getSpec().getContainers().get(0).setImage("vllm:v2");
                  return d;
                });
        break;
      } catch (io.fabric8.kubernetes.client.KubernetesClientException e) {
        if (e.getCode() != 409 || attempt == 10) {
          throw e;
        }
      }
    }
    await(
        () ->
            pods("web").size() == 3
                && pods("web").stream()
                    .allMatch(
                        p ->
                            p.getSpec().getContainers().get(0).getImage().equals("vllm:v2")
                                && Pods.ready(p))
                && rolledOut("web", 3),
        "every replica runs the new template");
    client.apps().deployments().inNamespace("team-a").withName("web").scale(1);
    await(() -> rolledOut("web", 1) && pods("web").size() == 1, "web scaled down to 1");
    assertThat(pods("web").get(0).getMetadata().getName()).isEqualTo("web-0");
  }

  @Test
  void a_refused_pod_is_reported_and_retried_until_admission_lets_it_through() throws Exception {
    client
        .resource(
            deployment(
                "own-flag", 1, "vllm/vllm-openai:v0.11.0", "serve", "--kv-cache-dtype", "fp8"))
        .create();
    await(() -> failedCreate.containsKey("own-flag"), "the refusal reported");
    assertThat(failedCreate.get("own-flag"))
        .contains("passes --kv-cache-dtype while it attaches a KV cache pool");
    await(
        () ->
            live("own-flag").getStatus() != null
                && live("own-flag").getStatus().getConditions().stream()
                    .anyMatch(
                        c ->
                            c.getType().equals("ReplicaFailure")
                                && c.getReason().equals("FailedCreate")),
        "ReplicaFailure in the status");
    assertThat(pods("own-flag")).isEmpty();
    server.admission(false);
    await(() -> rolledOut("own-flag", 1), "the retried Pod admitted once admission allows it");
    assertThat(live("own-flag").getStatus().getConditions())
        .noneMatch(c -> c.getType().equals("ReplicaFailure"));
  }

  @Test
  void deleting_the_deployment_deletes_its_pods() throws Exception {
    client.resource(deployment("web", 2, "vllm/vllm-openai:v0.11.0", "serve", "m")).create();
    await(() -> rolledOut("web", 2), "web rolled out");
    client.apps().deployments().inNamespace("team-a").withName("web").delete();
    await(() -> pods("web").isEmpty(), "the Pods deleted with their Deployment");
  }
}
