package ai.gpustack.kvcache.operator.deploy;

import static org.assertj.core.api.Assertions.assertThat;

import ai.gpustack.kvcache.api.Settings;
import ai.gpustack.kvcache.cluster.InformerClusterView;
import ai.gpustack.kvcache.operator.KvCacheOperator;
import ai.gpustack.kvcache.operator.TestObjects;
import ai.gpustack.kvcache.operator.certs.CertificateKeeper;
import ai.gpustack.kvcache.resources.KVCachePoolBinding;
import ai.gpustack.kvcache.resources.Keys;
import ai.gpustack.kvcache.resources.KvCacheSerialization;
import ai.gpustack.kvcache.resources.ModelDeployment;
import ai.gpustack.kvcache.resources.Pods;
import ai.gpustack.kvcache.sandbox.Kubelet;
import ai.gpustack.kvcache.sandbox.SandboxServer;
import ai.gpustack.kvcache.spi.EngineRegistry;
import ai.gpustack.kvcache.webhook.WebhookConfigurations;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.rbac.PolicyRule;
import io.fabric8.kubernetes.client.Config;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.KubernetesClientBuilder;
import io.micrometer.prometheusmetrics.PrometheusConfig;
import io.micrometer.prometheusmetrics.PrometheusMeterRegistry;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.TreeSet;
import java.util.function.BooleanSupplier;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The generated RBAC is least privilege: the operator, its webhook's informers and its certificate
 * keeper run a deployment's whole life on the sandbox's API server, and the audit of what they
 * asked for must equal, verb for verb, what {@link Permissions} grants.
 */
class RbacIT {
  static final String AGENT = "kvcache-operator-under-audit";

  /** The shared store, and a deployment of two replicas attached through it. */
  static final String BASE =
      TestObjects.STORE
          + """
      ---
      apiVersion: worker.gpustack.ai/v1
      kind: ModelDeployment
      metadata: {name: md, namespace: ns}
      spec:
        model: {name: m}
        engine: {name: vLLM}
        kvCache: {poolRef: {name: chat}}
        roles: [{name: server, replicas: 2}]
      """;

  /** A Pod created while the webhook was away: the operator reports it, as an Event. */
  static final String MISSED =
      """
      apiVersion: v1
      kind: Pod
      metadata:
        name: missed
        namespace: ns
        labels: {kvcache.gpustack.ai/inject: "true"}
        annotations: {kvcache.gpustack.ai/binding: chat, kvcache.gpustack.ai/engine: vLLM}
      spec:
        containers: [{name: vllm, image: vllm/vllm-openai, command: [vllm, serve, m]}]
      """;

  @TempDir Path dir;

  /** One request as RBAC sees it. */
  record Access(String group, String resource, String verb, String scope) {
    @Override
    public String toString() {
      return (group.isEmpty() ? "core" : group) + " " + resource + " " + verb + " " + scope;
    }
  }

  static Optional<Access> access(String line) {
    String[] parts = line.split(" ", 3);
    if (!parts[2].equals(AGENT)) {
      return Optional.empty();
    }
    String method = parts[0];
    String path = parts[1];
    boolean watch = path.contains("watch=true");
    String[] s = path.replaceFirst("\\?.*$", "").replaceAll("^/+", "").split("/");
    int i;
    String group;
    if (s[0].equals("api")) {
      group = "";
      i = 2;
    } else if (s[0].equals("apis") && s.length > 3) {
      group = s[1];
      i = 3;
    } else {
      return Optional.empty(); // discovery: every authenticated user may read it
    }
    String scope = "cluster";
    if (s.length > i + 1 && s[i].equals("namespaces")) {
      scope = s[i + 1].equals(Settings.NAMESPACE) ? Settings.NAMESPACE : "any namespace";
      i += 2;
    }
    String resource = s[i];
    boolean named = s.length > i + 1;
    if (s.length > i + 2) {
      resource += "/" + s[i + 2];
    }
    String verb =
        switch (method) {
          case "GET" -> named ? "get" : watch ? "watch" : "list";
          case "POST" -> "create";
          case "PUT" -> "update";
          case "PATCH" -> "patch";
          case "DELETE" -> named ? "delete" : "deletecollection";
          default -> method;
        };
    return Optional.of(new Access(group, resource, verb, scope));
  }

  static Set<Access> granted(List<PolicyRule> rules, String scope) {
    Set<Access> out = new TreeSet<>(java.util.Comparator.comparing(Access::toString));
    for (PolicyRule r : rules) {
      for (String g : r.getApiGroups()) {
        for (String res : r.getResources()) {
          for (String v : r.getVerbs()) {
            out.add(new Access(g, res, v, scope));
          }
        }
      }
    }
    return out;
  }

  static void await(String what, BooleanSupplier done) {
    TestObjects.await(what, Duration.ofSeconds(60), done);
  }

  @Test
  @SuppressWarnings("try") // the kubelet, keeper and informers only have to run meanwhile
  void every_granted_verb_is_used_and_nothing_else_is_asked_for() throws Exception {
    Set<Access> observed = new TreeSet<>(java.util.Comparator.comparing(Access::toString));
    try (SandboxServer server = SandboxServer.start(EngineRegistry.load(), 0)) {
      KubernetesClient test = server.client();
      WebhookConfigurations.Target target = WebhookConfigurations.Target.service(null);
      test.resource(WebhookConfigurations.mutating(target, Map.of())).create();
      test.resource(WebhookConfigurations.validating(target, Map.of())).create();
      List<String> audit = server.audit();
      Config config = Config.fromKubeconfig(server.kubeconfig());
      config.setUserAgent(AGENT);
      try (KubernetesClient client =
              new KubernetesClientBuilder()
                  .withConfig(config)
                  .withKubernetesSerialization(KvCacheSerialization.create())
                  .build();
          Kubelet kubelet = new Kubelet(test, Duration.ofMillis(50));
          CertificateKeeper keeper =
              CertificateKeeper.start(client, List.of(), dir, Clock.systemUTC());
          InformerClusterView view = InformerClusterView.start(client)) {
        KvCacheOperator operator =
            KvCacheOperator.start(
                client,
                EngineRegistry.load(),
                new PrometheusMeterRegistry(PrometheusConfig.DEFAULT),
                new KvCacheOperator.Options(
                    Optional.of("audited"),
                    Duration.ofSeconds(2),
                    Optional.empty(),
                    Map.of(),
                    Clock.systemUTC(),
                    true,
                    KvCacheOperator.LeaseLost.STOP_RECONCILING,
                    () -> true));
        try {
          await("the lease", operator::ready);
          TestObjects.apply(test, BASE);
          await("two ready replicas", () -> readyReplicas(test) == 2);
          server.admission(false);
          test.resource(test.getKubernetesSerialization().unmarshal(MISSED, Pod.class)).create();
          server.admission(true);
          await(
              "the missed injection reported",
              () ->
                  test.events().v1().events().inNamespace("ns").list().getItems().stream()
                      .anyMatch(e -> e.getRegarding().getName().equals("missed")));
          // a second replica a year on renews the certificate the first one issued
          try (CertificateKeeper later =
              CertificateKeeper.start(
                  client,
                  List.of(),
                  dir.resolve("later"),
                  Clock.offset(Clock.systemUTC(), Duration.ofDays(340)))) {
            assertThat(later.certFile()).exists();
          }
          edit(test, md -> md.getSpec().withRoles(md.getSpec().roles().get(0).withReplicas(1)));
          await("one replica", () -> replicas(test) == 1);
          TestObjects.setting(test, Settings.KV_CACHE_DTYPE_OWNED.name(), "false");
          await("the rollout", () -> readyReplicas(test) == 1 && !hasFlag(test));
          TestObjects.setting(test, Settings.KV_CACHE_DTYPE_OWNED.name(), "true");
          await("the rollout back", () -> readyReplicas(test) == 1 && hasFlag(test));
          test.resources(ModelDeployment.class).inNamespace("ns").withName("md").delete();
          await(
              "the deployment gone",
              () ->
                  test.resources(ModelDeployment.class).inNamespace("ns").withName("md").get()
                      == null);
          test.pods().inNamespace("ns").withName("missed").delete();
          test.resources(KVCachePoolBinding.class).inNamespace("ns").withName("chat").delete();
          await(
              "the binding gone",
              () ->
                  test.resources(KVCachePoolBinding.class).inNamespace("ns").withName("chat").get()
                      == null);
        } finally {
          operator.close();
        }
      }
      List.copyOf(audit).stream()
          .map(RbacIT::access)
          .flatMap(Optional::stream)
          .forEach(observed::add);
    }
    List<PolicyRule> cluster = new java.util.ArrayList<>(Permissions.cluster());
    cluster.addAll(Permissions.workloads());
    cluster.addAll(Permissions.observe());
    cluster.addAll(Permissions.selfSignedCluster());
    List<PolicyRule> system = new java.util.ArrayList<>(Permissions.system());
    system.addAll(Permissions.selfSignedSystem());
    Set<String> clusterGrants = keys(granted(cluster, "cluster"));
    Set<String> systemGrants = keys(granted(system, Settings.NAMESPACE));

    Set<String> denied = new TreeSet<>();
    for (Access a : observed) {
      String key = key(a);
      boolean allowed =
          clusterGrants.contains(key)
              || (a.scope().equals(Settings.NAMESPACE) && systemGrants.contains(key));
      if (!allowed
          && !a.resource().equals("selfsubjectrulesreviews")
          && !a.resource().equals("selfsubjectaccessreviews")) {
        denied.add(a.toString());
      }
    }
    assertThat(denied).as("asked for but not granted").isEmpty();

    Set<String> usedAnywhere = new TreeSet<>();
    Set<String> usedOutsideSystem = new TreeSet<>();
    Set<String> usedInSystem = new TreeSet<>();
    for (Access a : observed) {
      usedAnywhere.add(key(a));
      (a.scope().equals(Settings.NAMESPACE) ? usedInSystem : usedOutsideSystem).add(key(a));
    }
    assertThat(clusterGrants)
        .as("granted cluster-wide but used only in " + Settings.NAMESPACE + " (or not at all)")
        .allMatch(g -> usedOutsideSystem.contains(g) || NOT_ALWAYS_ASKED.contains(g));
    assertThat(systemGrants)
        .as("granted but never used")
        .allMatch(g -> usedInSystem.contains(g) || NOT_ALWAYS_ASKED.contains(g));
  }

  /**
   * Grants a run may or may not exercise: modeldeployments get when a write meets a conflict (the
   * Java Operator SDK then re-reads the primary); pools and backends get when the webhook's cache
   * has not seen one yet; leases update, which the Java Operator SDK checks for (through a
   * SelfSubjectRulesReview) before it starts, while fabric8's lock renews with patch. The real
   * control plane's suite shows the shipped roles suffice under a real authorizer.
   */
  static final Set<String> NOT_ALWAYS_ASKED =
      Set.of(
          "worker.gpustack.ai modeldeployments get",
          "worker.gpustack.ai kvcachepools get",
          "worker.gpustack.ai kvcachebackends get",
          "coordination.k8s.io leases update");

  static String key(Access a) {
    return (a.group().isEmpty() ? "core" : a.group()) + " " + a.resource() + " " + a.verb();
  }

  static Set<String> keys(Set<Access> accesses) {
    Set<String> out = new TreeSet<>();
    accesses.forEach(a -> out.add(key(a)));
    return out;
  }

  static int replicas(KubernetesClient c) {
    return c.pods().inNamespace("ns").withLabel(Keys.INSTANCE, "md").list().getItems().size();
  }

  static int readyReplicas(KubernetesClient c) {
    return (int)
        c.pods().inNamespace("ns").withLabel(Keys.INSTANCE, "md").list().getItems().stream()
            .filter(Pods::ready)
            .count();
  }

  static boolean hasFlag(KubernetesClient c) {
    return c.pods().inNamespace("ns").withLabel(Keys.INSTANCE, "md").list().getItems().stream()
        .allMatch(
            p -> p.getSpec().getContainers().get(0).getCommand().contains("--kv-cache-dtype"));
  }

  static void edit(
      KubernetesClient c,
      java.util.function.Function<ModelDeployment, ai.gpustack.kvcache.api.ModelDeploymentSpec>
          change) {
    TestObjects.edit(
        c,
        ModelDeployment.class,
        "ns",
        "md",
        md -> {
          md.setSpec(change.apply(md));
          return md;
        });
  }
}
