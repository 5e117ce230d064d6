package ai.gpustack.kvcache.operator.cli;

import static org.assertj.core.api.Assertions.assertThat;

import ai.gpustack.kvcache.operator.TestObjects;
import ai.gpustack.kvcache.operator.migrate.MigrationRecord;
import ai.gpustack.kvcache.operator.migrate.Migrator;
import ai.gpustack.kvcache.resources.KVCachePoolBinding;
import ai.gpustack.kvcache.resources.Keys;
import ai.gpustack.kvcache.resources.ModelDeployment;
import ai.gpustack.kvcache.resources.Pods;
import ai.gpustack.kvcache.resources.Setting;
import ai.gpustack.kvcache.spi.EngineRegistry;
import io.fabric8.kubernetes.api.model.HasMetadata;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.client.KubernetesClient;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.MethodOrderer;
import org.junit.jupiter.api.Order;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestMethodOrder;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * {@code kvcache migrate} against the sandbox, on the upgrade guide's recovery: vLLM deployments
 * stored on {@code bf16} Bindings while the Setting was off, held once it is back on (vLLM rejects
 * {@code bf16}), moved to {@code bfloat16} Bindings: planned without a change, applied, and applied
 * again after the process was killed between steps.
 */
@TestMethodOrder(MethodOrderer.OrderAnnotation.class)
class MigrateIT {
  static final String NS = "team-a";
  @TempDir static Path dir;
  static Sandbox sandbox;
  static KubernetesClient client;
  static Path kubeconfig;

  @BeforeAll
  static void start() throws Exception {
    sandbox = Sandbox.start(EngineRegistry.load(), 0, new PrintWriter(new StringWriter()));
    client = sandbox.client();
    sandbox.applyExamples();
    assertThat(sandbox.awaitSettled()).isTrue();
    for (String name : List.of("kill1", "kill2", "kill3", "kill4", "sbs", "mixed", "flip", "inj")) {
      create(
          """
          apiVersion: worker.gpustack.ai/v1
          kind: KVCachePoolBinding
          metadata: {name: %s, namespace: team-a}
          spec:
            poolRef: {name: shared}
            domain: {name: %s, blockSize: 16, dtype: bf16}
            quota: {ceiling: 1Gi}
          """
              .formatted(name, name),
          KVCachePoolBinding.class);
    }
    sandbox.flip(false);
    held("legacy-vllm", "legacy", 1);
    for (String name : List.of("kill1", "kill2", "kill3", "kill4", "sbs", "flip", "inj")) {
      held(name + "-vllm", name, 2);
    }
    // fp8 is E5M2 on vLLM 0.4 and E4M3 from 0.5: one domain cannot hold both.
    held("mixed-old", "mixed", 1, "0.4.2");
    held("mixed-new", "mixed", 1, "0.6.0");
    sandbox.flip(true);
    create(
        """
        apiVersion: apps/v1
        kind: Deployment
        metadata: {name: inj-sglang, namespace: team-a}
        spec:
          replicas: 2
          selector: {matchLabels: {app: inj-sglang}}
          template:
            metadata:
              labels: {app: inj-sglang, kvcache.gpustack.ai/inject: "true"}
              annotations: {kvcache.gpustack.ai/binding: inj, kvcache.gpustack.ai/engine: SGLang}
            spec:
              containers:
                - name: sglang
                  image: lmsysorg/sglang:v0.5.18
                  command: [python3, -m, sglang.launch_server]
                  args: [--model-path, qwen/qwen3-8b]
        """,
        io.fabric8.kubernetes.api.model.apps.Deployment.class);
    TestObjects.await(
        "the injected Pods of inj-sglang",
        Duration.ofSeconds(60),
        () ->
            client.pods().inNamespace(NS).withLabel("app", "inj-sglang").list().getItems().stream()
                    .filter(Pods::ready)
                    .count()
                == 2);
    assertThat(sandbox.awaitSettled()).isTrue();
    TestObjects.await(
        "legacy-vllm held", Duration.ofSeconds(60), () -> "Held".equals(phase("legacy-vllm")));
    kubeconfig = dir.resolve("sandbox.kubeconfig");
    Files.writeString(kubeconfig, sandbox.server().kubeconfig());
  }

  /**
   * A vLLM deployment on {@code binding}, stored (and taken by the operator) while the Setting is
   * off.
   */
  private static void held(String name, String binding, int replicas) {
    held(name, binding, replicas, "0.29.0");
  }

  private static void held(String name, String binding, int replicas, String version) {
    create(
        """
        apiVersion: worker.gpustack.ai/v1
        kind: ModelDeployment
        metadata: {name: %s, namespace: team-a}
        spec:
          model: {name: qwen/qwen3-8b}
          engine: {name: vLLM, version: "%s"}
          kvCache: {poolRef: {name: %s}}
          roles: [{name: server, replicas: %d}]
        """
            .formatted(name, version, binding, replicas),
        ModelDeployment.class);
    TestObjects.awaitTaken(client, NS, name, 0);
  }

  private static <T extends HasMetadata> void create(String yaml, Class<T> type) {
    client.resource(client.getKubernetesSerialization().unmarshal(yaml, type)).create();
  }

  @AfterAll
  static void stop() {
    if (sandbox != null) {
      sandbox.close();
    }
  }

  @Test
  @Order(1)
  void a_plan_names_every_deployment_and_changes_nothing() {
    Map<String, String> before = everything();

    CliRun plan = migrate("--binding", "team-a/legacy", "--dtype", "bfloat16");

    assertThat(plan.exitCode()).as(plan.out() + plan.err()).isZero();
    assertThat(plan.out())
        .contains("to team-a/legacy-bfloat16 (dtype \"bfloat16\", domain team-a-legacy-bfloat16)")
        .containsPattern("legacy-vllm +vLLM +legacy-vllm +legacy-vllm-server-0")
        .contains("$ kubectl -n team-a delete modeldeployment legacy-vllm --wait")
        .contains("Plan only: nothing was changed");
    assertUnchanged(before);
  }

  @Test
  @Order(2)
  void a_dtype_an_attached_engine_rejects_exits_1_before_touching_anything() {
    Map<String, String> before = everything();

    // SGLang, attached through chat, has no float16; the plan meets the webhook's refusal.
    CliRun plan = migrate("--binding", "team-a/chat", "--dtype", "float16", "--apply");

    assertThat(plan.exitCode()).as(plan.out() + plan.err()).isEqualTo(1);
    assertThat(plan.out())
        .contains("Refusals (the plan stops here; nothing was changed)")
        .contains(
            "create ModelDeployment team-a/chat-sglang: ModelDeployment \"chat-sglang\" is invalid")
        .contains("declares dtype \"float16\", which engine \"SGLang\" 0.5.18 does not accept")
        .doesNotContain("Applying");
    assertUnchanged(before);
  }

  @Test
  @Order(3)
  void applied_the_held_deployment_runs_on_a_bfloat16_binding_and_the_old_one_is_gone() {
    CliRun apply = migrate("--binding", "team-a/legacy", "--dtype", "bfloat16", "--apply");

    assertThat(apply.exitCode()).as(apply.out() + apply.err()).isZero();
    assertThat(apply.out())
        .contains("migrated: team-a/legacy -> team-a/legacy-bfloat16 (dtype bfloat16");
    assertMigrated("legacy", "legacy-vllm", "legacy-vllm", 1);

    CliRun again = migrate("--binding", "team-a/legacy", "--dtype", "bfloat16", "--apply");
    assertThat(again.exitCode()).isZero();
    assertThat(again.out()).contains("Nothing to migrate");
  }

  /**
   * Killed right after step N (1 the new Binding created, 2 the old deployment deleted and only the
   * record holds it, 3 the new one created, 4 it is Ready), then run again.
   */
  @ParameterizedTest(name = "killed after step {0}")
  @ValueSource(ints = {1, 2, 3, 4})
  @Order(4)
  void a_run_killed_after_any_step_and_run_again_ends_in_the_same_state(int step) throws Exception {
    String binding = "kill" + step;
    String md = binding + "-vllm";

    Process killed = jar(step, "--binding", NS + "/" + binding, "--dtype", "bfloat16", "--apply");

    assertThat(killed.exitValue()).isEqualTo(137);
    MigrationRecord record = recordOn(binding);
    assertThat(record.completed()).isEqualTo(step);
    assertThat(record.deployments()).containsOnlyKeys(md);
    if (step == 2) {
      assertThat(deployment(md)).as("deleted; only the record holds its manifest").isNull();
    }

    CliRun resumed = migrate("--binding", NS + "/" + binding, "--dtype", "bfloat16", "--apply");

    assertThat(resumed.exitCode()).as(resumed.out() + resumed.err()).isZero();
    assertThat(resumed.out()).contains("Resuming after step " + step).contains("already done");
    assertMigrated(binding, md, md, 2);
  }

  @Test
  @Order(5)
  void side_by_side_killed_before_the_replacement_is_ready_never_deletes_the_old_one_early()
      throws Exception {
    Process killed =
        jar(
            2,
            "--binding",
            "team-a/sbs",
            "--dtype",
            "bfloat16",
            "--strategy",
            "side-by-side",
            "--apply");

    assertThat(killed.exitValue()).isEqualTo(137);
    assertThat(deployment("sbs-vllm"))
        .as("the old one stays until its replacement is Ready")
        .isNotNull();
    assertThat(deployment("sbs-vllm-bfloat16")).isNotNull();

    CliRun resumed = migrate("--binding", "team-a/sbs", "--dtype", "bfloat16", "--apply");

    assertThat(resumed.exitCode()).as(resumed.out() + resumed.err()).isZero();
    assertMigrated("sbs", "sbs-vllm", "sbs-vllm-bfloat16", 2);
  }

  @Test
  @Order(6)
  void a_dtype_two_attached_versions_store_in_different_formats_exits_1() {
    Map<String, String> before = everything();

    CliRun plan = migrate("--binding", "team-a/mixed", "--dtype", "fp8");

    assertThat(plan.exitCode()).as(plan.out() + plan.err()).isEqualTo(1);
    assertThat(plan.out())
        .contains("create ModelDeployment team-a/mixed-old:")
        .contains("holds one KV format, but dtype \"fp8\" on vLLM 0.4.2 stores float8_e5m2");
    assertUnchanged(before);
  }

  @Test
  @Order(7)
  void a_domain_name_claimed_on_the_backend_exits_1_naming_the_holder() {
    CliRun plan =
        migrate("--binding", "team-a/flip", "--dtype", "bfloat16", "--domain", "team-a-chat");

    assertThat(plan.exitCode()).as(plan.out() + plan.err()).isEqualTo(1);
    assertThat(plan.out())
        .contains("create KVCachePoolBinding team-a/flip-bfloat16:")
        .contains("spec.domain.name")
        .contains("team-a/chat");
  }

  @Test
  @Order(8)
  void the_setting_turned_off_for_a_migration_is_restored_by_the_run_that_finishes_it()
      throws Exception {
    Process killed =
        jar(
            1,
            "--binding",
            "team-a/flip",
            "--dtype",
            "bfloat16",
            "--setting-off-while-migrating",
            "--apply");

    assertThat(killed.exitValue()).isEqualTo(137);
    assertThat(settingValue()).isEqualTo("false");
    assertThat(recordOn("flip").settingWas()).contains("true");

    // Run again without the flag: the record remembers that the Setting is to be restored.
    CliRun resumed = migrate("--binding", "team-a/flip", "--dtype", "bfloat16", "--apply");

    assertThat(resumed.exitCode()).as(resumed.out() + resumed.err()).isZero();
    assertThat(resumed.out())
        .contains("restore Setting model-deployment-kv-cache-dtype-owned ... done");
    assertThat(settingValue()).isEqualTo("true");
    assertMigrated("flip", "flip-vllm", "flip-vllm", 2);
  }

  @Test
  @Order(9)
  void injected_workloads_keep_the_old_binding_until_included_then_move_with_it() {
    CliRun first = migrate("--binding", "team-a/inj", "--dtype", "bfloat16", "--apply");

    assertThat(first.exitCode()).as(first.out() + first.err()).isZero();
    assertThat(first.out())
        .contains(
            "Deployment inj-sglang (SGLang, Pods inj-sglang-0,inj-sglang-1): left to its owner")
        .contains("delete KVCachePoolBinding team-a/inj ... kept")
        .contains("the old Binding is kept while the workloads left to their owners hold it");
    assertThat(client.resources(KVCachePoolBinding.class).inNamespace(NS).withName("inj").get())
        .isNotNull();

    CliRun second =
        migrate("--binding", "team-a/inj", "--dtype", "bfloat16", "--include-injected", "--apply");

    assertThat(second.exitCode()).as(second.out() + second.err()).isZero();
    assertThat(
            client
                .apps()
                .deployments()
                .inNamespace(NS)
                .withName("inj-sglang")
                .get()
                .getSpec()
                .getTemplate()
                .getMetadata()
                .getAnnotations())
        .containsEntry(Keys.BINDING, "inj-bfloat16");
    assertMigrated("inj", "inj-vllm", "inj-vllm", 2);
    TestObjects.await(
        "the injected Pods on the new Binding",
        Duration.ofSeconds(60),
        () ->
            client.pods().inNamespace(NS).withLabel("app", "inj-sglang").list().getItems().stream()
                    .filter(p -> p.getMetadata().getDeletionTimestamp() == null)
                    .filter(
                        p ->
                            Pods.annotation(p, Keys.INJECTED)
                                .orElse("")
                                .contains("\"dtype\":\"bfloat16\""))
                    .count()
                == 2);
  }

  private static String settingValue() {
    return client
        .resources(Setting.class)
        .inNamespace("gpustack-system")
        .withName("model-deployment-kv-cache-dtype-owned")
        .get()
        .getSpec()
        .value()
        .orElse("");
  }

  private static void assertMigrated(String old, String oldMd, String md, int replicas) {
    String fresh = old + "-bfloat16";
    assertThat(client.resources(KVCachePoolBinding.class).inNamespace(NS).withName(old).get())
        .as("the old Binding is gone")
        .isNull();
    KVCachePoolBinding binding =
        client.resources(KVCachePoolBinding.class).inNamespace(NS).withName(fresh).get();
    assertThat(binding.getSpec().domain().dtype()).isEqualTo("bfloat16");
    List<String> attached =
        client.resources(ModelDeployment.class).inNamespace(NS).list().getItems().stream()
            .filter(d -> d.attachesThrough(fresh) || d.attachesThrough(old))
            .map(d -> d.getMetadata().getName())
            .toList();
    assertThat(attached).as("one deployment, no duplicate").containsExactly(md);
    if (!oldMd.equals(md)) {
      assertThat(deployment(oldMd)).isNull();
    }
    TestObjects.await(md + " Ready", Duration.ofSeconds(60), () -> "Ready".equals(phase(md)));
    TestObjects.await(
        "exactly " + replicas + " replicas of " + md,
        Duration.ofSeconds(30),
        () -> pods(md).size() == replicas);
    TestObjects.await(
        "every replica of " + md + " running --kv-cache-dtype bfloat16",
        Duration.ofSeconds(60),
        () ->
            pods(md).size() == replicas
                && pods(md).stream()
                    .allMatch(
                        p ->
                            String.join(" ", p.getSpec().getContainers().get(0).getCommand())
                                .contains("--kv-cache-dtype bfloat16")));
    assertThat(pods(md).stream().map(Pods::ordinal).sorted().toList())
        .isEqualTo(java.util.stream.IntStream.range(0, replicas).boxed().toList());
    TestObjects.await(
        "the new Binding's usedBy naming " + md,
        Duration.ofSeconds(30),
        () ->
            client
                        .resources(KVCachePoolBinding.class)
                        .inNamespace(NS)
                        .withName(fresh)
                        .get()
                        .getStatus()
                    != null
                && client
                    .resources(KVCachePoolBinding.class)
                    .inNamespace(NS)
                    .withName(fresh)
                    .get()
                    .getStatus()
                    .usedBy()
                    .stream()
                    .map(w -> w.name())
                    .toList()
                    .equals(List.of(md)));
  }

  private static CliRun migrate(String... args) {
    List<String> all =
        new ArrayList<>(
            List.of("migrate", "--kubeconfig", kubeconfig.toString(), "--timeout", "60s"));
    Collections.addAll(all, args);
    return CliRun.of(all.toArray(String[]::new));
  }

  /** The shipped jar, halted right after step {@code halt}. */
  private static Process jar(int halt, String... args) throws Exception {
    List<String> all =
        new ArrayList<>(
            List.of("migrate", "--kubeconfig", kubeconfig.toString(), "--timeout", "60s"));
    Collections.addAll(all, args);
    Path log = dir.resolve("migrate-" + halt + "-" + System.nanoTime() + ".log");
    Process process =
        new ProcessBuilder(
                ShippedJar.command(
                    List.of("-D" + Migrator.HALT_AFTER_STEP + "=" + halt),
                    all.toArray(String[]::new)))
            .redirectErrorStream(true)
            .redirectOutput(log.toFile())
            .start();
    assertThat(process.waitFor(120, TimeUnit.SECONDS)).as(Files.readString(log)).isTrue();
    return process;
  }

  private static MigrationRecord recordOn(String binding) {
    String json =
        client
            .resources(KVCachePoolBinding.class)
            .inNamespace(NS)
            .withName(binding)
            .get()
            .getMetadata()
            .getAnnotations()
            .get(MigrationRecord.ANNOTATION);
    return MigrationRecord.parse(json);
  }

  private static ModelDeployment deployment(String name) {
    return client.resources(ModelDeployment.class).inNamespace(NS).withName(name).get();
  }

  private static String phase(String name) {
    ModelDeployment md = deployment(name);
    return md == null || md.getStatus() == null ? null : md.getStatus().phase().orElse(null);
  }

  private static List<Pod> pods(String md) {
    return client.pods().inNamespace(NS).withLabel(Keys.INSTANCE, md).list().getItems().stream()
        .filter(p -> p.getMetadata().getDeletionTimestamp() == null)
        .toList();
  }

  private static void assertUnchanged(Map<String, String> before) {
    Map<String, String> after = everything();
    List<String> changed =
        before.keySet().stream()
            .filter(k -> !java.util.Objects.equals(before.get(k), after.get(k)))
            .toList();
    assertThat(changed).as("objects changed: %s", after).isEmpty();
    assertThat(after.keySet()).isEqualTo(before.keySet());
  }

  /** Every object's kind, name, resourceVersion and spec: what "changes nothing" compares. */
  private static Map<String, String> everything() {
    Map<String, String> all = new TreeMap<>();
    List<HasMetadata> objects = new ArrayList<>();
    objects.addAll(client.resources(KVCachePoolBinding.class).inAnyNamespace().list().getItems());
    objects.addAll(client.resources(ModelDeployment.class).inAnyNamespace().list().getItems());
    objects.addAll(client.resources(Setting.class).inAnyNamespace().list().getItems());
    objects.addAll(client.pods().inAnyNamespace().list().getItems());
    for (HasMetadata o : objects) {
      all.put(
          o.getKind() + " " + o.getMetadata().getNamespace() + "/" + o.getMetadata().getName(),
          o.getMetadata().getResourceVersion()
              + " "
              + client.getKubernetesSerialization().asJson(o).replaceAll("\"status\":.*", ""));
    }
    return all;
  }
}
