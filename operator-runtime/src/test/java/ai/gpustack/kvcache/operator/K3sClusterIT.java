package ai.gpustack.kvcache.operator;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import ai.gpustack.kvcache.resources.KVCachePoolBinding;
import ai.gpustack.kvcache.resources.Keys;
import ai.gpustack.kvcache.resources.KvCacheSerialization;
import ai.gpustack.kvcache.spi.EngineRegistry;
import io.fabric8.kubernetes.api.model.NamespaceBuilder;
import io.fabric8.kubernetes.api.model.apiextensions.v1.CustomResourceDefinition;
import io.fabric8.kubernetes.client.Config;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.KubernetesClientBuilder;
import io.fabric8.kubernetes.client.KubernetesClientException;
import io.micrometer.prometheusmetrics.PrometheusConfig;
import io.micrometer.prometheusmetrics.PrometheusMeterRegistry;
import java.io.File;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Duration;
import java.util.Map;
import java.util.Optional;
import org.junit.jupiter.api.Test;
import org.testcontainers.junit.jupiter.Container;
import org.testcontainers.junit.jupiter.Testcontainers;
import org.testcontainers.k3s.K3sContainer;
import org.testcontainers.utility.DockerImageName;

/**
 * Against a real API server (k3s): the generated CRDs apply, their CEL rules refuse an immutable
 * change with no webhook installed, and the operator renders the Binding's dtype into every
 * replica's command, as the upgrade guide's verify step reads it. Skipped where no Docker runs.
 */
@Testcontainers(disabledWithoutDocker = true)
class K3sClusterIT {
  @Container
  static final K3sContainer K3S =
      new K3sContainer(DockerImageName.parse("rancher/k3s:v1.32.4-k3s1"));

  @Test
  void crds_cel_rules_and_rendering_hold_on_a_real_api_server() throws Exception {
    Config config = Config.fromKubeconfig(K3S.getKubeConfigYaml());
    try (KubernetesClient client =
        new KubernetesClientBuilder()
            .withConfig(config)
            .withKubernetesSerialization(KvCacheSerialization.create())
            .build()) {
      for (File crd :
          Path.of("..", "deploy", "crds")
              .toFile()
              .listFiles((d, name) -> !name.equals("kustomization.yaml"))) {
        client
            .apiextensions()
            .v1()
            .customResourceDefinitions()
            .resource(
                client
                    .getKubernetesSerialization()
                    .unmarshal(Files.readString(crd.toPath()), CustomResourceDefinition.class))
            .create();
      }
      Thread.sleep(3000);
      for (String ns : new String[] {"gpustack-system", "ns"}) {
        client
            .namespaces()
            .resource(new NamespaceBuilder().withNewMetadata().withName(ns).endMetadata().build())
            .create();
      }
      TestObjects.apply(client, TestObjects.STORE);
      assertThatThrownBy(
              () ->
                  client
                      .resources(KVCachePoolBinding.class)
                      .inNamespace("ns")
                      .withName("chat")
                      .edit(
                          b -> {
                            b.setSpec(
                                b.getSpec().withDomain(b.getSpec().domain().withDtype("fp8_e4m3")));
                            return b;
                          }))
          .isInstanceOf(KubernetesClientException.class)
          .hasMessageContaining("dtype is immutable");
      try (KvCacheOperator operator =
          KvCacheOperator.start(
              client,
              EngineRegistry.load(),
              new PrometheusMeterRegistry(PrometheusConfig.DEFAULT),
              new KvCacheOperator.Options(
                  Optional.of("k3s"),
                  Duration.ofSeconds(15),
                  Optional.empty(),
                  Map.of(),
                  Clock.systemUTC(),
                  true,
                  KvCacheOperator.LeaseLost.STOP_RECONCILING,
                  () -> true))) {
        TestObjects.apply(client, OperatorIT.md("v", "vLLM", "chat", 2, ""));
        TestObjects.await(
            "two replicas",
            Duration.ofSeconds(60),
            () ->
                client
                        .pods()
                        .inNamespace("ns")
                        .withLabel(Keys.INSTANCE, "v")
                        .list()
                        .getItems()
                        .size()
                    >= 2);
        assertThat(client.pods().inNamespace("ns").withLabel(Keys.INSTANCE, "v").list().getItems())
            .hasSize(2)
            .allSatisfy(
                p ->
                    assertThat(
                            String.join("\",\"", p.getSpec().getContainers().get(0).getCommand()))
                        .contains("--kv-cache-dtype\",\"bfloat16"));
        assertThat(operator.ready()).isTrue();
      }
    }
  }
}
