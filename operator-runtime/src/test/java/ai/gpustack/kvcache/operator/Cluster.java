package ai.gpustack.kvcache.operator;

import static org.assertj.core.api.Assertions.assertThat;

import ai.gpustack.kvcache.resources.Keys;
import ai.gpustack.kvcache.resources.ModelDeployment;
import ai.gpustack.kvcache.resources.Pods;
import ai.gpustack.kvcache.sandbox.Kubelet;
import ai.gpustack.kvcache.sandbox.SandboxServer;
import ai.gpustack.kvcache.spi.EngineRegistry;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.micrometer.prometheusmetrics.PrometheusConfig;
import io.micrometer.prometheusmetrics.PrometheusMeterRegistry;
import java.net.InetSocketAddress;
import java.time.Clock;
import java.time.Duration;
import java.util.Comparator;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.function.Supplier;

/**
 * A test cluster: the sandbox's API server (CRUD mock, admission chain), a stand-in kubelet, and
 * operators started and stopped as a test needs. Objects are written as YAML.
 */
final class Cluster implements AutoCloseable {
  static final Duration WAIT = Duration.ofSeconds(60);

  final SandboxServer server = SandboxServer.start(EngineRegistry.load(), 0);
  final Kubelet kubelet = new Kubelet(server.client(), Duration.ofMillis(100));
  KvCacheOperator operator;

  KubernetesClient client() {
    return server.client();
  }

  Cluster start() {
    operator = startOperator(Optional.empty(), Optional.empty());
    return this;
  }

  KvCacheOperator startOperator(Optional<String> lease, Optional<InetSocketAddress> health) {
    return startOperator(lease, health, Set.of());
  }

  /** An operator that reconciles and watches {@code namespaces} only (none: every namespace). */
  KvCacheOperator startOperator(Set<String> namespaces) {
    return startOperator(Optional.empty(), Optional.empty(), namespaces);
  }

  private KvCacheOperator startOperator(
      Optional<String> lease, Optional<InetSocketAddress> health, Set<String> namespaces) {
    return KvCacheOperator.start(
        client(),
        EngineRegistry.load(),
        new PrometheusMeterRegistry(PrometheusConfig.DEFAULT),
        new KvCacheOperator.Options(
            lease,
            Duration.ofSeconds(2),
            health,
            Map.of(),
            Clock.systemUTC(),
            true,
            KvCacheOperator.LeaseLost.STOP_RECONCILING,
            () -> true,
            namespaces));
  }

  /** Creates every document of {@code yaml}; throws when admission refuses one. */
  void apply(String yaml) {
    TestObjects.apply(client(), yaml);
  }

  void setting(String name, String value) {
    TestObjects.setting(client(), name, value);
  }

  /** Edits {@code name}'s object, retrying while the operator writes it too. */
  void edit(
      String namespace, String name, java.util.function.UnaryOperator<ModelDeployment> change) {
    TestObjects.edit(client(), ModelDeployment.class, namespace, name, change);
  }

  ModelDeployment md(String namespace, String name) {
    return client().resources(ModelDeployment.class).inNamespace(namespace).withName(name).get();
  }

  List<Pod> pods(String namespace, String deployment) {
    return client()
        .pods()
        .inNamespace(namespace)
        .withLabel(Keys.INSTANCE, deployment)
        .list()
        .getItems()
        .stream()
        .sorted(Comparator.comparing(p -> p.getMetadata().getName()))
        .toList();
  }

  static List<String> command(Pod pod) {
    return pod.getSpec().getContainers().get(0).getCommand();
  }

  static boolean ready(Pod pod) {
    return Pods.ready(pod);
  }

  /** Waits until {@code value} holds (asserting it at the deadline). */
  static void await(String what, Supplier<Boolean> condition) {
    long deadline = System.nanoTime() + WAIT.toNanos();
    while (System.nanoTime() < deadline) {
      try {
        if (Boolean.TRUE.equals(condition.get())) {
          return;
        }
      } catch (RuntimeException e) {
        // not there yet
      }
      try {
        Thread.sleep(50);
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
        throw new AssertionError(e);
      }
    }
    assertThat(condition.get()).as(what).isTrue();
  }

  @Override
  public void close() {
    kubelet.close();
    if (operator != null) {
      operator.close();
    }
    server.close();
  }
}
