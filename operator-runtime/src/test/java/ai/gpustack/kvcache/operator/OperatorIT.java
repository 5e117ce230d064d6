package ai.gpustack.kvcache.operator;

import static ai.gpustack.kvcache.operator.Cluster.await;
import static ai.gpustack.kvcache.operator.Cluster.command;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import ai.gpustack.kvcache.api.Condition;
import ai.gpustack.kvcache.api.Settings;
import ai.gpustack.kvcache.api.WorkloadRef;
import ai.gpustack.kvcache.resources.KVCacheBackend;
import ai.gpustack.kvcache.resources.KVCachePool;
import ai.gpustack.kvcache.resources.KVCachePoolBinding;
import ai.gpustack.kvcache.resources.Keys;
import ai.gpustack.kvcache.resources.ModelDeployment;
import ai.gpustack.kvcache.resources.Setting;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.PodBuilder;
import io.fabric8.kubernetes.api.model.coordination.v1.Lease;
import io.fabric8.kubernetes.client.KubernetesClientException;
import io.fabric8.kubernetes.client.dsl.Resource;
import java.net.InetSocketAddress;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.Collections;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.stream.Collectors;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/** The reference operator on the CRUD mock, with the admission chain in front, path by path. */
class OperatorIT {
  /** A Binding declaring bf16, SGLang's spelling, which vLLM rejects. */
  static final String LEGACY =
      """
      apiVersion: worker.gpustack.ai/v1
      kind: KVCachePoolBinding
      metadata: {name: legacy, namespace: ns}
      spec: {poolRef: {name: shared}, domain: {name: legacy, blockSize: 16, dtype: bf16}, quota: {ceiling: 1Ti}}
      """;

  static String md(String name, String engine, String binding, int replicas, String extra) {
    return """
        apiVersion: worker.gpustack.ai/v1
        kind: ModelDeployment
        metadata: {name: %s, namespace: ns}
        spec:
          model: {name: org/model}
          engine: {name: %s}
          kvCache: {poolRef: {name: %s}}
          roles: [{name: server, replicas: %d%s}]
        """
        .formatted(name, engine, binding, replicas, extra);
  }

  Cluster cluster;

  @BeforeEach
  void start() {
    cluster = new Cluster().start();
    cluster.apply(TestObjects.STORE);
  }

  @AfterEach
  void stop() {
    cluster.close();
  }

  static boolean settled(ModelDeployment md) {
    return md != null
        && md.getStatus() != null
        && md.getStatus().phase().filter("Ready"::equals).isPresent()
        && md.getStatus()
            .observedGeneration()
            .equals(Optional.ofNullable(md.getMetadata().getGeneration()));
  }

  static Condition condition(ModelDeployment md, String type) {
    return md.getStatus().conditions().stream()
        .filter(c -> c.type().equals(type))
        .findFirst()
        .orElseThrow();
  }

  static int pairs(List<String> argv, String dtype) {
    return Collections.indexOfSubList(argv, List.of("--kv-cache-dtype", dtype)) < 0
        ? 0
        : (int)
            java.util.stream.IntStream.range(0, argv.size() - 1)
                .filter(
                    i -> argv.get(i).equals("--kv-cache-dtype") && argv.get(i + 1).equals(dtype))
                .count();
  }

  @Test
  void
      every_replica_of_vllm_and_sglang_carries_the_bindings_dtype_once_and_status_echoes_the_binding() {
    cluster.apply(md("v", "vLLM", "chat", 2, "") + "---\n" + md("s", "SGLang", "chat", 1, ""));
    await("both ready", () -> settled(cluster.md("ns", "v")) && settled(cluster.md("ns", "s")));
    for (String d : List.of("v", "s")) {
      List<Pod> pods = cluster.pods("ns", d);
      assertThat(pods).isNotEmpty();
      pods.forEach(
          p ->
              assertThat(pairs(command(p), "bfloat16")).as(p.getMetadata().getName()).isEqualTo(1));
      ModelDeployment md = cluster.md("ns", d);
      assertThat(md.getStatus().kvCache().orElseThrow().binding()).isEqualTo("chat");
      assertThat(md.getStatus().kvCache().orElseThrow().pool()).isEqualTo("shared");
      assertThat(md.getStatus().kvCache().orElseThrow().domain().dtype()).isEqualTo("bfloat16");
      assertThat(condition(md, "DomainRegistered").status()).isEqualTo("True");
      assertThat(condition(md, "CacheAttached").status()).isEqualTo("True");
      assertThat(condition(md, "DtypeAccepted").reason()).contains("Accepted");
    }
    assertThat(cluster.pods("ns", "v"))
        .extracting(p -> p.getMetadata().getLabels().get(Keys.POD_ORDINAL))
        .containsExactly("0", "1");
    assertThat(cluster.pods("ns", "v").get(0).getMetadata().getLabels())
        .containsEntry(Keys.COMPONENT, "server")
        .containsEntry(Keys.INSTANCE, "v");
    KVCachePoolBinding binding = chat().get();
    await(
        "claims",
        () ->
            usedBy("chat")
                .containsAll(
                    List.of(
                        WorkloadRef.of("ModelDeployment", "", "s"),
                        WorkloadRef.of("ModelDeployment", "", "v"))));
    assertThat(binding.getMetadata().getFinalizers()).contains(Keys.BINDING_FINALIZER);
  }

  @Test
  void a_claim_dropped_from_the_bindings_used_by_is_made_again() {
    cluster.apply(md("v", "vLLM", "chat", 1, "") + "---\n" + md("s", "SGLang", "chat", 1, ""));
    WorkloadRef v = WorkloadRef.of("ModelDeployment", "", "v");
    WorkloadRef s = WorkloadRef.of("ModelDeployment", "", "s");
    await("claims", () -> usedBy("chat").containsAll(List.of(s, v)));
    chat()
        .editStatus(
            b -> {
              b.setStatus(b.getStatus().withUsedBy(List.of(s)));
              return b;
            });
    await("v claims again", () -> usedBy("chat").containsAll(List.of(s, v)));
  }

  private List<WorkloadRef> usedBy(String binding) {
    KVCachePoolBinding b =
        cluster
            .client()
            .resources(KVCachePoolBinding.class)
            .inNamespace("ns")
            .withName(binding)
            .get();
    return b.getStatus() == null ? List.of() : b.getStatus().usedBy();
  }

  @Test
  void a_setting_flip_rolls_each_role_one_replica_at_a_time_and_back() throws Exception {
    cluster.apply(md("v", "vLLM", "chat", 3, ""));
    await("ready", () -> settled(cluster.md("ns", "v")));
    Set<String> hashes =
        cluster.pods("ns", "v").stream()
            .map(p -> p.getMetadata().getAnnotations().get(Keys.POD_SPEC_HASH))
            .collect(Collectors.toSet());
    AtomicInteger worst = new AtomicInteger();
    AtomicBoolean watching = new AtomicBoolean(true);
    Thread observer =
        new Thread(
            () -> {
              while (watching.get()) {
                List<Pod> pods = cluster.pods("ns", "v");
                long down =
                    3
                        - pods.stream()
                            .filter(
                                p ->
                                    Cluster.ready(p)
                                        && p.getMetadata().getDeletionTimestamp() == null)
                            .count();
                worst.accumulateAndGet((int) down, Math::max);
              }
            });
    observer.start();
    cluster.setting(Settings.KV_CACHE_DTYPE_OWNED.name(), "false");
    await(
        "rolled without the flag",
        () ->
            settled(cluster.md("ns", "v"))
                && cluster.pods("ns", "v").size() == 3
                && cluster.pods("ns", "v").stream()
                    .allMatch(p -> !command(p).contains("--kv-cache-dtype") && Cluster.ready(p)));
    watching.set(false);
    observer.join();
    assertThat(worst.get()).as("replicas down at once during the rollout").isLessThanOrEqualTo(1);
    assertThat(cluster.pods("ns", "v"))
        .allSatisfy(
            p ->
                assertThat(hashes)
                    .doesNotContain(p.getMetadata().getAnnotations().get(Keys.POD_SPEC_HASH)));
    await(
        "status says not owned",
        () ->
            condition(cluster.md("ns", "v"), "DtypeAccepted")
                .reason()
                .equals(Optional.of("NotOwned")));
    cluster.setting(Settings.KV_CACHE_DTYPE_OWNED.name(), "true");
    await(
        "rolled back with the flag",
        () ->
            settled(cluster.md("ns", "v"))
                && cluster.pods("ns", "v").stream()
                    .allMatch(p -> pairs(command(p), "bfloat16") == 1 && Cluster.ready(p)));
    assertThat(cluster.pods("ns", "v"))
        .allSatisfy(
            p ->
                assertThat(hashes)
                    .contains(p.getMetadata().getAnnotations().get(Keys.POD_SPEC_HASH)));
  }

  @Test
  void an_operator_scoped_to_two_namespaces_keeps_each_ones_replicas_and_rolls_both() {
    cluster.operator.close();
    cluster.operator = cluster.startOperator(Set.of("ns", "ns2"));
    for (String ns : List.of("ns2", "ns3")) {
      cluster.apply(
          """
          apiVersion: worker.gpustack.ai/v1
          kind: KVCachePoolBinding
          metadata: {name: chat, namespace: %1$s}
          spec: {poolRef: {name: shared}, domain: {name: chat-%1$s, blockSize: 16, dtype: bfloat16}, quota: {ceiling: 1Ti}}
          """
              .formatted(ns));
    }
    String other = md("v", "vLLM", "chat", 2, "");
    cluster.apply(
        other
            + "---\n"
            + other.replace("namespace: ns}", "namespace: ns2}")
            + "---\n"
            + other.replace("namespace: ns}", "namespace: ns3}"));
    for (String ns : List.of("ns", "ns2")) {
      await(ns + " ready", () -> settled(cluster.md(ns, "v")));
    }
    // A new operator's caches start from lists of both namespaces' running replicas.
    cluster.operator.close();
    cluster.operator = cluster.startOperator(Set.of("ns", "ns2"));
    cluster.setting(Settings.KV_CACHE_DTYPE_OWNED.name(), "false");
    for (String ns : List.of("ns", "ns2")) {
      await(
          ns + " rolled without the flag, two replicas and no more",
          () ->
              settled(cluster.md(ns, "v"))
                  && cluster.pods(ns, "v").size() == 2
                  && cluster.pods(ns, "v").stream()
                      .allMatch(p -> !command(p).contains("--kv-cache-dtype") && Cluster.ready(p)));
    }
    assertThat(cluster.pods("ns3", "v")).as("a namespace the operator does not watch").isEmpty();
    assertThat(cluster.md("ns3", "v").getStatus()).isNull();
  }

  @Test
  void scaling_adds_and_removes_the_highest_ordinals_and_leaves_survivors_alone() {
    cluster.apply(md("v", "vLLM", "chat", 3, ""));
    await("ready", () -> settled(cluster.md("ns", "v")));
    Map<String, String> uids = uids();
    replicas(5);
    await("five", () -> settled(cluster.md("ns", "v")) && cluster.pods("ns", "v").size() == 5);
    assertThat(uids()).containsAllEntriesOf(uids);
    replicas(2);
    await("two", () -> settled(cluster.md("ns", "v")) && cluster.pods("ns", "v").size() == 2);
    assertThat(uids())
        .containsOnlyKeys("v-server-0", "v-server-1")
        .containsEntry("v-server-0", uids.get("v-server-0"))
        .containsEntry("v-server-1", uids.get("v-server-1"));
  }

  private Map<String, String> uids() {
    return cluster.pods("ns", "v").stream()
        .collect(Collectors.toMap(p -> p.getMetadata().getName(), p -> p.getMetadata().getUid()));
  }

  /** Edits the replica count as a user would: again on a conflict with the operator's writes. */
  private void replicas(int n) {
    cluster.edit(
        "ns",
        "v",
        md -> {
          md.setSpec(md.getSpec().withRoles(md.getSpec().roles().get(0).withReplicas(n)));
          return md;
        });
  }

  @Test
  void a_stored_deployment_whose_engine_rejects_the_dtype_holds_its_replicas_and_says_why() {
    cluster.apply(LEGACY);
    cluster.setting(Settings.KV_CACHE_DTYPE_OWNED.name(), "false");
    cluster.apply(md("v", "vLLM", "legacy", 2, ""));
    await("ready without the flag", () -> settled(cluster.md("ns", "v")));
    Map<String, String> before = uids();
    cluster.setting(Settings.KV_CACHE_DTYPE_OWNED.name(), "true");
    await(
        "held", () -> cluster.md("ns", "v").getStatus().phase().filter("Held"::equals).isPresent());
    Condition accepted = condition(cluster.md("ns", "v"), "DtypeAccepted");
    assertThat(accepted.status()).isEqualTo("False");
    assertThat(accepted.reason()).contains("SpellingRejectedByEngine");
    assertThat(accepted.message().orElseThrow())
        .contains("\"bf16\"", "If new Pods fail argument parsing");
    assertThat(uids()).isEqualTo(before);
    assertThat(cluster.pods("ns", "v"))
        .allSatisfy(p -> assertThat(command(p)).doesNotContain("--kv-cache-dtype"));
    awaitEvent("SpellingRejectedByEngine", "v");
  }

  @Test
  void a_binding_is_held_by_its_deployments_and_goes_once_they_are_gone() {
    cluster.apply(md("v", "vLLM", "chat", 1, ""));
    await("ready", () -> settled(cluster.md("ns", "v")));
    chat().delete();
    awaitHeldBy("ModelDeployment/v");
    cluster.client().resources(ModelDeployment.class).inNamespace("ns").withName("v").delete();
    await(
        "deployment and its replicas gone",
        () -> cluster.md("ns", "v") == null && cluster.pods("ns", "v").isEmpty());
    await("binding gone", () -> chat().get() == null);
  }

  @Test
  void a_binding_is_held_by_its_injected_pods_and_goes_once_they_are_gone() {
    cluster.client().pods().inNamespace("ns").resource(optedIn("injected")).create();
    assertThat(
            cluster
                .client()
                .pods()
                .inNamespace("ns")
                .withName("injected")
                .get()
                .getMetadata()
                .getAnnotations())
        .as("the webhook's injection record")
        .containsKey(Keys.INJECTED);
    chat().delete();
    awaitHeldBy("Pod/injected");
    cluster.client().pods().inNamespace("ns").withName("injected").withGracePeriod(0).delete();
    // woken by the Pod's departure, not by the held Binding's recheck 10 s after it was held
    TestObjects.await("binding gone", Duration.ofSeconds(7), () -> chat().get() == null);
  }

  @Test
  void a_deployment_held_by_an_injected_pods_format_renders_once_that_pod_is_gone()
      throws InterruptedException {
    // fp8 is E5M2 on vLLM 0.4 and E4M3 from 0.5: the Pod, attached first, holds the domain's
    // format.
    cluster.apply(
        """
        apiVersion: worker.gpustack.ai/v1
        kind: KVCachePoolBinding
        metadata: {name: fp8, namespace: ns}
        spec: {poolRef: {name: shared}, domain: {name: fp8, blockSize: 16, dtype: fp8}, quota: {ceiling: 1Ti}}
        """);
    Pod old = optedIn("old-vllm", "fp8");
    old.getMetadata().getAnnotations().put(Keys.ENGINE_VERSION, "0.4.2");
    cluster.client().pods().inNamespace("ns").resource(old).create();
    // Creation times are whole seconds; in the same one, the deployment would sort first.
    Thread.sleep(1_100);
    // Admission would refuse the deployment; stored while the webhook was down, the operator holds
    // it.
    cluster.server.admission(false);
    cluster.apply(
        """
        apiVersion: worker.gpustack.ai/v1
        kind: ModelDeployment
        metadata: {name: v, namespace: ns}
        spec:
          model: {name: org/model}
          engine: {name: vLLM, version: "0.6.0"}
          kvCache: {poolRef: {name: fp8}}
          roles: [{name: server, replicas: 1}]
        """);
    cluster.server.admission(true);
    await(
        "held", () -> cluster.md("ns", "v").getStatus().phase().filter("Held"::equals).isPresent());
    assertThat(condition(cluster.md("ns", "v"), "DtypeAccepted").message().orElseThrow())
        .contains("holds one KV format", "Pod/old-vllm");
    assertThat(cluster.pods("ns", "v")).isEmpty();
    cluster.client().pods().inNamespace("ns").withName("old-vllm").withGracePeriod(0).delete();
    // woken by the Pod's departure, which the Binding controller's informer tells of
    TestObjects.await("ready", Duration.ofSeconds(7), () -> settled(cluster.md("ns", "v")));
    assertThat(cluster.pods("ns", "v"))
        .singleElement()
        .satisfies(p -> assertThat(pairs(command(p), "fp8")).isEqualTo(1));
  }

  @Test
  void the_upgrade_guides_recovery_works_end_to_end() {
    cluster.apply(LEGACY);
    cluster.setting(Settings.KV_CACHE_DTYPE_OWNED.name(), "false");
    cluster.apply(md("old", "vLLM", "legacy", 2, ""));
    await("old ready", () -> settled(cluster.md("ns", "old")));
    // 0. Turn the Setting off (already off here, as after a bad upgrade); 1. a new Binding,
    // corrected dtype, new domain name.
    assertThatThrownBy(
            () ->
                cluster.apply(
                    """
        apiVersion: worker.gpustack.ai/v1
        kind: KVCachePoolBinding
        metadata: {name: fixed, namespace: ns}
        spec: {poolRef: {name: shared}, domain: {name: legacy, blockSize: 16, dtype: bfloat16}, quota: {ceiling: 1Ti}}
        """))
        .isInstanceOf(KubernetesClientException.class)
        .hasMessageContaining("already claimed");
    cluster.apply(
        """
        apiVersion: worker.gpustack.ai/v1
        kind: KVCachePoolBinding
        metadata: {name: fixed, namespace: ns}
        spec: {poolRef: {name: shared}, domain: {name: legacy-v2, blockSize: 16, dtype: bfloat16}, quota: {ceiling: 1Ti}}
        """);
    // 2. kvCache is an identity field: re-pointing is refused, so the deployment is recreated under
    // the new Binding.
    assertThatThrownBy(
            () ->
                cluster
                    .client()
                    .resources(ModelDeployment.class)
                    .inNamespace("ns")
                    .withName("old")
                    .edit(
                        md -> {
                          md.setSpec(
                              md.getSpec()
                                  .withKvCache(
                                      md.getSpec()
                                          .kvCache()
                                          .get()
                                          .withPoolRef(
                                              ai.gpustack.kvcache.api.LocalRef.of("fixed"))));
                          return md;
                        }))
        .hasMessageContaining("kvCache is an identity field");
    cluster.apply(md("new", "vLLM", "fixed", 2, ""));
    await("new ready", () -> settled(cluster.md("ns", "new")));
    // 3. Delete the old deployment and the old Binding; its deletion completes once nothing holds
    // it.
    cluster.client().resources(ModelDeployment.class).inNamespace("ns").withName("old").delete();
    cluster
        .client()
        .resources(KVCachePoolBinding.class)
        .inNamespace("ns")
        .withName("legacy")
        .delete();
    await(
        "old binding gone",
        () ->
            cluster
                    .client()
                    .resources(KVCachePoolBinding.class)
                    .inNamespace("ns")
                    .withName("legacy")
                    .get()
                == null);
    // 4. The Setting back on: the new deployment rolls to the corrected dtype.
    cluster.setting(Settings.KV_CACHE_DTYPE_OWNED.name(), "true");
    await(
        "new carries bfloat16",
        () ->
            settled(cluster.md("ns", "new"))
                && cluster.pods("ns", "new").stream()
                    .allMatch(p -> pairs(command(p), "bfloat16") == 1 && Cluster.ready(p)));
    assertThat(cluster.pods("ns", "old")).isEmpty();
  }

  @Test
  void a_restart_in_the_middle_of_a_rollout_resumes_without_losing_or_duplicating_a_replica() {
    cluster.apply(md("v", "vLLM", "chat", 3, ""));
    await("ready", () -> settled(cluster.md("ns", "v")));
    cluster.kubelet.pause(true);
    cluster.setting(Settings.KV_CACHE_DTYPE_OWNED.name(), "false");
    await(
        "one replaced and waiting",
        () ->
            cluster.pods("ns", "v").stream()
                .anyMatch(p -> !command(p).contains("--kv-cache-dtype")));
    cluster.operator.close();
    cluster.operator = cluster.startOperator(Optional.empty(), Optional.empty());
    cluster.kubelet.pause(false);
    await(
        "rolled",
        () ->
            settled(cluster.md("ns", "v"))
                && cluster.pods("ns", "v").stream()
                    .allMatch(p -> !command(p).contains("--kv-cache-dtype") && Cluster.ready(p)));
    assertThat(cluster.pods("ns", "v"))
        .extracting(p -> p.getMetadata().getName())
        .containsExactly("v-server-0", "v-server-1", "v-server-2");
  }

  @Test
  void a_take_over_role_runs_its_own_argv_and_is_reported_unmanaged() {
    cluster.apply(md("t", "vLLM", "chat", 1, ", command: [vllm, serve, m, --kv-cache-dtype, fp8]"));
    await("ready", () -> settled(cluster.md("ns", "t")));
    assertThat(command(cluster.pods("ns", "t").get(0)))
        .containsExactly("vllm", "serve", "m", "--kv-cache-dtype", "fp8");
    assertThat(cluster.md("ns", "t").getStatus().roles().get(0).unmanaged()).isTrue();
    assertThat(cluster.pods("ns", "t").get(0).getSpec().getContainers().get(0).getEnv()).isEmpty();
  }

  @Test
  void a_missing_binding_renders_no_connector_and_says_so() {
    cluster.server.admission(false);
    cluster.apply(md("v", "vLLM", "nowhere", 1, ""));
    await("ready", () -> settled(cluster.md("ns", "v")));
    assertThat(command(cluster.pods("ns", "v").get(0)))
        .doesNotContain("--kv-cache-dtype", "--kv-transfer-config");
    assertThat(condition(cluster.md("ns", "v"), "DomainRegistered").reason())
        .contains("BindingNotFound");
  }

  @Test
  void pool_and_backend_status_echo_the_endpoint_domains_and_quota() {
    cluster.apply(
        """
        apiVersion: worker.gpustack.ai/v1
        kind: KVCachePoolBinding
        metadata: {name: big, namespace: other}
        spec: {poolRef: {name: shared}, domain: {name: big, blockSize: 32, dtype: fp8_e4m3}, quota: {ceiling: 2Ti}}
        """);
    // Admission keeps the ceilings within the total; a total lowered afterwards oversubscribes.
    TestObjects.edit(
        cluster.client(),
        KVCachePool.class,
        null,
        "shared",
        p -> {
          p.setSpec(p.getSpec().withQuota(p.getSpec().quota().withTotal("2Ti")));
          return p;
        });
    // The new Binding and the lowered total are two events: wait for the status to read both.
    await(
        "pool status",
        () -> {
          KVCachePool pool = cluster.client().resources(KVCachePool.class).withName("shared").get();
          return pool.getStatus() != null
              && pool.getStatus().domains().size() == 2
              && pool.getStatus().conditions().stream()
                  .anyMatch(c -> c.message().orElse("").contains("total of 2Ti"));
        });
    KVCachePool pool = cluster.client().resources(KVCachePool.class).withName("shared").get();
    assertThat(pool.getStatus().clientEndpoint()).contains("master.kv.svc:50051");
    assertThat(pool.getStatus().domains())
        .anySatisfy(
            d -> {
              assertThat(d.name()).isEqualTo("big");
              assertThat(d.blockSize()).isEqualTo(32);
              assertThat(d.dtype()).isEqualTo("fp8_e4m3");
              assertThat(d.binding().path()).isEqualTo("other/big");
            });
    assertThat(pool.getStatus().conditions())
        .anySatisfy(
            c -> {
              assertThat(c.type()).isEqualTo("QuotaWithinTotal");
              assertThat(c.status()).isEqualTo("False");
              assertThat(c.reason()).contains("Oversubscribed");
            });
    await(
        "backend",
        () ->
            cluster
                .client()
                .resources(KVCacheBackend.class)
                .withName("mooncake")
                .get()
                .getStatus()
                .usedBy()
                .contains(WorkloadRef.of("KVCachePool", "", "shared")));
  }

  @Test
  void settings_are_created_with_their_defaults_and_never_overwritten() {
    Setting owned =
        cluster
            .client()
            .resources(Setting.class)
            .inNamespace(Settings.NAMESPACE)
            .withName(Settings.KV_CACHE_DTYPE_OWNED.name())
            .get();
    assertThat(owned.getSpec().value()).contains("true");
    cluster.setting(Settings.KV_CACHE_DTYPE_OWNED.name(), "false");
    cluster.operator.close();
    cluster.operator = cluster.startOperator(Optional.empty(), Optional.empty());
    await(
        "status shows the value",
        () ->
            cluster
                .client()
                .resources(Setting.class)
                .inNamespace(Settings.NAMESPACE)
                .withName(Settings.KV_CACHE_DTYPE_OWNED.name())
                .get()
                .getStatus()
                .value()
                .equals(Optional.of("false")));
    assertThat(
            cluster
                .client()
                .resources(Setting.class)
                .inNamespace(Settings.NAMESPACE)
                .withName(Settings.KV_CACHE_DTYPE_SPELLING_CHECK.name())
                .get()
                .getSpec()
                .value())
        .contains("Enforce");
  }

  @Test
  void pods_opted_in_without_an_injection_record_are_reported_on_their_binding() {
    cluster.server.admission(false);
    cluster.client().pods().inNamespace("ns").resource(optedIn("missed")).create();
    await("audit", () -> injectionRecorded("False", "missed"));
    awaitEvent("NotInjected", "missed");
    // Its departure clears the audit: a missed Pod's deletion wakes its Binding.
    cluster.client().pods().inNamespace("ns").withName("missed").withGracePeriod(0).delete();
    await("audit cleared", () -> injectionRecorded("True", "every Pod"));
  }

  /** Binding chat of namespace ns, the one every deployment here attaches through. */
  private Resource<KVCachePoolBinding> chat() {
    return cluster.client().resources(KVCachePoolBinding.class).inNamespace("ns").withName("chat");
  }

  /** Until Binding chat, being deleted, says {@code holder} holds it. */
  private void awaitHeldBy(String holder) {
    await(
        "held by " + holder,
        () -> {
          KVCachePoolBinding b = chat().get();
          return b.getMetadata().getDeletionTimestamp() != null
              && b.getStatus().phase().filter("Deleting"::equals).isPresent()
              && b.getStatus().conditions().stream()
                  .anyMatch(
                      c ->
                          c.type().equals("Releasable")
                              && c.status().equals("False")
                              && c.reason().filter("HeldByWorkloads"::equals).isPresent()
                              && c.message().orElse("").contains(holder));
        });
  }

  /** A vLLM Pod opted into injection through Binding chat. */
  private static Pod optedIn(String name) {
    return optedIn(name, "chat");
  }

  private static Pod optedIn(String name, String binding) {
    return new PodBuilder()
        .withNewMetadata()
        .withName(name)
        .withNamespace("ns")
        .addToLabels(Keys.INJECT, "true")
        .addToAnnotations(Keys.BINDING, binding)
        .addToAnnotations(Keys.ENGINE, "vLLM")
        .endMetadata()
        .withNewSpec()
        .addNewContainer()
        .withName("main")
        .withImage("x")
        .withCommand("vllm")
        .withArgs("serve", "m")
        .endContainer()
        .endSpec()
        .build();
  }

  private boolean injectionRecorded(String status, String message) {
    return chat().get().getStatus().conditions().stream()
        .anyMatch(
            c ->
                c.type().equals("InjectionRecorded")
                    && c.status().equals(status)
                    && c.message().orElse("").contains(message));
  }

  @Test
  void two_operators_share_one_lease_and_the_standby_takes_over() throws Exception {
    cluster.operator.close();
    KvCacheOperator first =
        cluster.startOperator(
            Optional.of("op-1"), Optional.of(new InetSocketAddress("127.0.0.1", 0)));
    await("op-1 leads", () -> holder().equals(Optional.of("op-1")));
    KvCacheOperator second = cluster.startOperator(Optional.of("op-2"), Optional.empty());
    cluster.apply(md("v", "vLLM", "chat", 1, ""));
    await("ready", () -> settled(cluster.md("ns", "v")));
    HttpClient http = HttpClient.newHttpClient();
    String base = "http://127.0.0.1:" + first.healthAddress().orElseThrow().getPort();
    assertThat(
            http.send(
                    HttpRequest.newBuilder(URI.create(base + "/healthz")).build(),
                    HttpResponse.BodyHandlers.ofString())
                .statusCode())
        .isEqualTo(200);
    assertThat(
            http.send(
                    HttpRequest.newBuilder(URI.create(base + "/metrics")).build(),
                    HttpResponse.BodyHandlers.ofString())
                .body())
        .contains("operator_sdk_");
    first.close();
    await("op-2 leads", () -> holder().equals(Optional.of("op-2")));
    the_standby_takes_over_a_scale_to_2(second);
    second.close();
    assertThat(holder()).as("a clean stop leaves the lease to whoever asks next").contains("");
  }

  private void the_standby_takes_over_a_scale_to_2(KvCacheOperator standby) {
    replicas(2);
    await(
        "the standby reconciles",
        () -> settled(cluster.md("ns", "v")) && cluster.pods("ns", "v").size() == 2);
    assertThat(standby.ready()).isTrue();
  }

  private Optional<String> holder() {
    Lease lease =
        cluster
            .client()
            .leases()
            .inNamespace(Settings.NAMESPACE)
            .withName(KvCacheOperator.LEASE)
            .get();
    return lease == null
        ? Optional.empty()
        : Optional.ofNullable(lease.getSpec().getHolderIdentity());
  }

  static Set<String> names(List<Pod> pods) {
    return pods.stream()
        .map(p -> p.getMetadata().getName())
        .collect(Collectors.toCollection(HashSet::new));
  }

  /**
   * Waits for an event in namespace {@code ns} with {@code reason} about object {@code regarding}.
   */
  private void awaitEvent(String reason, String regarding) {
    await(
        reason + " event",
        () ->
            cluster.client().events().v1().events().inNamespace("ns").list().getItems().stream()
                .anyMatch(
                    e ->
                        reason.equals(e.getReason())
                            && regarding.equals(e.getRegarding().getName())));
  }
}
