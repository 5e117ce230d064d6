package ai.gpustack.kvcache.operator.cli;

import ai.gpustack.kvcache.api.Condition;
import ai.gpustack.kvcache.api.Settings;
import ai.gpustack.kvcache.cluster.Manifests;
import ai.gpustack.kvcache.operator.KvCacheOperator;
import ai.gpustack.kvcache.operator.status.Events;
import ai.gpustack.kvcache.resources.KVCachePoolBinding;
import ai.gpustack.kvcache.resources.Keys;
import ai.gpustack.kvcache.resources.KvCacheSerialization;
import ai.gpustack.kvcache.resources.ModelDeployment;
import ai.gpustack.kvcache.resources.Setting;
import ai.gpustack.kvcache.sandbox.Kubelet;
import ai.gpustack.kvcache.sandbox.ReplicaSets;
import ai.gpustack.kvcache.sandbox.SandboxServer;
import ai.gpustack.kvcache.spi.EngineRegistry;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.MappingIterator;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.dataformat.yaml.YAMLFactory;
import io.fabric8.kubernetes.api.model.HasMetadata;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.apps.Deployment;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.KubernetesClientException;
import io.micrometer.prometheusmetrics.PrometheusConfig;
import io.micrometer.prometheusmetrics.PrometheusMeterRegistry;
import java.io.IOException;
import java.io.InputStream;
import java.io.PrintWriter;
import java.io.UncheckedIOException;
import java.time.Clock;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.function.BooleanSupplier;

/**
 * The main job without a cluster: the embedded API server, the reference operator, the admission
 * chain and a stand-in kubelet, driven through the examples' manifests, telling a person what
 * happened at each step.
 */
public final class Sandbox implements AutoCloseable {
  static final List<String> EXAMPLES =
      List.of(
          "00-namespace.yaml",
          "00-backend.yaml",
          "01-pool.yaml",
          "02-bindings.yaml",
          "03-deployments.yaml",
          "04-refused.yaml",
          "05-injected.yaml",
          "06-formats.yaml",
          "07-format-refused.yaml");
  static final String NAMESPACE = "team-a";
  private static final ObjectMapper YAML = new ObjectMapper(new YAMLFactory());
  private static final Duration WAIT = Duration.ofSeconds(90);

  private final SandboxServer server;
  private final Optional<KvCacheOperator> operator;
  private final PrometheusMeterRegistry registry;
  private final Kubelet kubelet;
  private final ReplicaSets replicaSets;
  private final PrintWriter out;

  private Sandbox(
      SandboxServer server,
      Optional<KvCacheOperator> operator,
      PrometheusMeterRegistry registry,
      Kubelet kubelet,
      ReplicaSets replicaSets,
      PrintWriter out) {
    this.server = server;
    this.operator = operator;
    this.registry = registry;
    this.kubelet = kubelet;
    this.replicaSets = replicaSets;
    this.out = out;
  }

  /** Starts the server, the operator and the kubelet on {@code port} (0: any free one). */
  public static Sandbox start(EngineRegistry engines, int port, PrintWriter out) {
    return start(engines, port, out, true);
  }

  /**
   * Starts the server and the kubelet on {@code port} (0: any free one), and the operator in the
   * same process when {@code withOperator}; without it, a {@code kvcache run} started apart
   * reconciles (and can be killed and restarted as the real deployment is).
   */
  public static Sandbox start(
      EngineRegistry engines, int port, PrintWriter out, boolean withOperator) {
    SandboxServer server = SandboxServer.start(engines, port);
    KubernetesClient client = server.client();
    PrometheusMeterRegistry registry = new PrometheusMeterRegistry(PrometheusConfig.DEFAULT);
    Optional<KvCacheOperator> operator =
        !withOperator
            ? Optional.empty()
            : Optional.of(
                KvCacheOperator.start(
                    operatorClient(server),
                    engines,
                    registry,
                    new KvCacheOperator.Options(
                        Optional.of("sandbox-operator"),
                        Duration.ofSeconds(15),
                        Optional.empty(),
                        Map.of(),
                        Clock.systemUTC(),
                        true,
                        KvCacheOperator.LeaseLost.STOP_RECONCILING,
                        () -> true)));
    Events replicaSetEvents = new Events(client, "replicaset-controller");
    ReplicaSets replicaSets =
        new ReplicaSets(
            client,
            Duration.ofSeconds(10),
            (deployment, message) ->
                replicaSetEvents.warning(deployment, "FailedCreate", "Error creating: " + message));
    return new Sandbox(
        server, operator, registry, new Kubelet(client, Duration.ofMillis(300)), replicaSets, out);
  }

  /**
   * The in-process operator's own client: named in the audit log as the operator, and so not spared
   * the faults the sandbox's stand-ins are.
   */
  private static KubernetesClient operatorClient(SandboxServer server) {
    return Clients.fromKubeconfig(server.kubeconfig(), "kvcache-operator/sandbox-operator");
  }

  /** The in-process operator's metrics, in the Prometheus text format (empty without one). */
  public String metrics() {
    return registry.scrape();
  }

  public SandboxServer server() {
    return server;
  }

  public KubernetesClient client() {
    return server.client();
  }

  /** Applies every example; refusals are reported, not thrown. */
  public void applyExamples() {
    section("Applying examples/sandbox (every write passes the admission chain)");
    for (String file : EXAMPLES) {
      for (JsonNode doc : examples(file)) {
        apply(doc);
      }
    }
  }

  private List<JsonNode> examples(String file) {
    try (InputStream in = Sandbox.class.getResourceAsStream("/examples/sandbox/" + file);
        MappingIterator<JsonNode> docs = YAML.readerFor(JsonNode.class).readValues(in)) {
      return docs.readAll().stream().filter(d -> d != null && d.has("kind")).toList();
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  private void apply(JsonNode doc) {
    HasMetadata object = Manifests.object(KvCacheSerialization.create(), doc);
    String what = object.getKind() + " " + path(object);
    try {
      HasMetadata created = client().resource(object).create();
      out.println("  created  " + what);
      if (created instanceof Deployment d) {
        replicaSet(d);
      }
    } catch (KubernetesClientException e) {
      out.println("  REFUSED  " + what);
      out.println("           " + message(e));
    }
  }

  /** Tells what the stand-in ReplicaSet did for {@code deployment}: its Pods, or FailedCreate. */
  private void replicaSet(Deployment deployment) {
    for (ReplicaSets.Replica replica : replicaSets.sync(deployment)) {
      String pod = deployment.getMetadata().getNamespace() + "/" + replica.pod();
      String owner = "Deployment " + deployment.getMetadata().getName();
      replica
          .refusal()
          .ifPresentOrElse(
              message -> {
                out.println("  REFUSED  Pod " + pod + " -> " + owner + " reports FailedCreate");
                out.println("           " + message);
              },
              () -> out.println("  created  Pod " + pod + " (from " + owner + ")"));
    }
  }

  /**
   * Waits until every deployment is Ready or Held and matches its render; returns whether it did.
   */
  public boolean awaitSettled() {
    return await(
        () -> {
          List<ModelDeployment> mds =
              client().resources(ModelDeployment.class).inAnyNamespace().list().getItems();
          return mds.stream()
              .allMatch(
                  md ->
                      md.getStatus() != null
                          && md.getStatus()
                              .observedGeneration()
                              .equals(Optional.ofNullable(md.getMetadata().getGeneration()))
                          && md.getStatus()
                              .phase()
                              .map(p -> p.equals("Ready") || p.equals("Held"))
                              .orElse(false)
                          && observed(md));
        });
  }

  /** Whether an attached deployment's replicas have all been read (or cannot be). */
  private static boolean observed(ModelDeployment md) {
    return md.getSpec().kvCache().isEmpty()
        || md.getStatus().conditions().stream()
            .anyMatch(
                c ->
                    c.type().equals("DtypeObserved")
                        && c.message().filter(m -> m.startsWith("reading the ")).isEmpty());
  }

  /** Sets the ownership Setting and waits for every attached deployment to roll. */
  public void flip(boolean owned) {
    section("Setting " + Settings.KV_CACHE_DTYPE_OWNED.name() + " to \"" + owned + "\"");
    client()
        .resources(Setting.class)
        .inNamespace(Settings.NAMESPACE)
        .withName(Settings.KV_CACHE_DTYPE_OWNED.name())
        .edit(
            s -> {
              s.setSpec(
                  ai.gpustack.kvcache.api.SettingSpec.builder()
                      .value(Boolean.toString(owned))
                      .build());
              return s;
            });
    await(
        () -> {
          List<String> held =
              client()
                  .resources(ModelDeployment.class)
                  .inNamespace(NAMESPACE)
                  .list()
                  .getItems()
                  .stream()
                  .filter(
                      md ->
                          md.getStatus() != null
                              && md.getStatus().phase().filter("Held"::equals).isPresent())
                  .map(md -> md.getMetadata().getName())
                  .toList();
          return pods().stream()
              .filter(p -> !held.contains(p.getMetadata().getLabels().get(Keys.INSTANCE)))
              .allMatch(p -> dtypeRendered(p) == owned || !attached(p));
        });
    awaitSettled();
  }

  private static boolean attached(Pod pod) {
    return pod.getMetadata().getAnnotations() != null
            && pod.getMetadata().getAnnotations().containsKey(Keys.CLIENT_CONFIG)
        || pod.getSpec().getContainers().get(0).getCommand().contains("--hicache-storage-backend");
  }

  private static boolean dtypeRendered(Pod pod) {
    return pod.getSpec().getContainers().get(0).getCommand().contains("--kv-cache-dtype");
  }

  /** Creates {@code file}'s documents again (after a Setting flip changed what admission says). */
  public void reapply(String file, String why) {
    section(why);
    examples(file).forEach(this::apply);
  }

  public void report() {
    section("Replicas (container main's command; the Binding's dtype in [brackets])");
    for (Pod pod : pods()) {
      List<String> command = pod.getSpec().getContainers().get(0).getCommand();
      out.println("  " + pod.getMetadata().getName() + "  " + highlight(command));
    }
    for (Pod pod :
        client().pods().inNamespace(NAMESPACE).withLabel(Keys.INJECT, "true").list().getItems()) {
      out.println(
          "  "
              + pod.getMetadata().getName()
              + " (injected)  "
              + String.join(" ", pod.getSpec().getContainers().get(0).getCommand())
              + " "
              + highlight(pod.getSpec().getContainers().get(0).getArgs()));
    }
    section("Conditions");
    for (ModelDeployment md :
        client().resources(ModelDeployment.class).inNamespace(NAMESPACE).list().getItems()) {
      out.println(
          "  ModelDeployment "
              + md.getMetadata().getName()
              + "  phase "
              + md.getStatus().phase().orElse("?"));
      md.getStatus().conditions().forEach(c -> out.println("    " + condition(c)));
    }
    for (KVCachePoolBinding b :
        client().resources(KVCachePoolBinding.class).inNamespace(NAMESPACE).list().getItems()) {
      out.println(
          "  KVCachePoolBinding "
              + b.getMetadata().getName()
              + "  dtype "
              + b.getSpec().domain().dtype()
              + "  phase "
              + (b.getStatus() == null ? "?" : b.getStatus().phase().orElse("?"))
              + "  usedBy "
              + (b.getStatus() == null
                  ? "[]"
                  : b.getStatus().usedBy().stream().map(r -> r.display()).toList()));
    }
    out.flush();
  }

  public List<Pod> pods() {
    return client()
        .pods()
        .inNamespace(NAMESPACE)
        .withLabel(Keys.MANAGED_BY, "kvcache-operator")
        .list()
        .getItems()
        .stream()
        .sorted(Comparator.comparing(p -> p.getMetadata().getName()))
        .toList();
  }

  private static String condition(Condition c) {
    return c.type()
        + "="
        + c.status()
        + " "
        + c.reason().orElse("")
        + ": "
        + c.message().orElse("");
  }

  private static String highlight(List<String> argv) {
    List<String> out = new ArrayList<>();
    for (int i = 0; i < argv.size(); i++) {
      if (argv.get(i).equals("--kv-cache-dtype") && i + 1 < argv.size()) {
        out.add("[--kv-cache-dtype " + argv.get(++i) + "]");
      } else {
        out.add(argv.get(i));
      }
    }
    return String.join(" ", out);
  }

  private void section(String title) {
    out.println();
    out.println("== " + title);
    out.flush();
  }

  static String message(KubernetesClientException e) {
    return e.getStatus() != null && e.getStatus().getMessage() != null
        ? e.getStatus().getMessage()
        : e.getMessage();
  }

  private static String path(HasMetadata o) {
    return o.getMetadata().getNamespace() == null
        ? o.getMetadata().getName()
        : o.getMetadata().getNamespace() + "/" + o.getMetadata().getName();
  }

  private static boolean await(BooleanSupplier done) {
    long deadline = System.nanoTime() + WAIT.toNanos();
    while (System.nanoTime() < deadline) {
      try {
        if (done.getAsBoolean()) {
          return true;
        }
        Thread.sleep(200);
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
        return false;
      } catch (KubernetesClientException e) {
        // A transient read failure: look again.
      }
    }
    return false;
  }

  @Override
  public void close() {
    replicaSets.close();
    kubelet.close();
    operator.ifPresent(KvCacheOperator::close);
    server.close();
  }
}
