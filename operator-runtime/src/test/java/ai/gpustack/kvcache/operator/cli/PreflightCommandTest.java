package ai.gpustack.kvcache.operator.cli;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.stream.StreamSupport;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** {@code kvcache preflight -f}: one scenario of the upgrade guide per fixture directory. */
class PreflightCommandTest {
  static final String STORE = "src/test/resources/preflight/store.yaml";

  static String scenario(String name) {
    return "src/test/resources/preflight/" + name;
  }

  static JsonNode json(CliRun run) throws Exception {
    return new ObjectMapper().readTree(run.out());
  }

  static List<String> checks(JsonNode report) {
    return StreamSupport.stream(report.path("findings").spliterator(), false)
        .map(f -> f.path("check").asText() + " " + f.path("object").asText())
        .toList();
  }

  static JsonNode binding(JsonNode report, String name) {
    return StreamSupport.stream(report.path("bindings").spliterator(), false)
        .filter(b -> b.path("name").asText().equals(name))
        .findFirst()
        .orElseThrow();
  }

  @Test
  void engines_sharing_an_accepted_dtype_pass_with_exit_0() throws Exception {
    CliRun run = CliRun.of("preflight", "-f", STORE, "-f", scenario("clean"), "-o", "json");
    assertThat(run.exitCode()).as(run.out() + run.err()).isZero();
    JsonNode report = json(run);
    assertThat(checks(report)).isEmpty();
    JsonNode chat = binding(report, "chat");
    assertThat(chat.path("dtype").asText()).isEqualTo("bfloat16");
    assertThat(chat.path("engines").findValuesAsText("engine"))
        .containsExactly("SGLang", "SGLang", "vLLM");
    assertThat(chat.path("engines").findValues("accepts")).allMatch(JsonNode::asBoolean);
    assertThat(chat.path("acceptedByAll").toString())
        .contains("\"bfloat16\"")
        .doesNotContain("bf16");
    assertThat(report.path("exitCode").asInt()).isZero();
  }

  @Test
  void a_spelling_one_engine_rejects_breaks_and_names_what_both_accept() throws Exception {
    CliRun run = CliRun.of("preflight", "-f", STORE, "-f", scenario("spelling"), "-o", "json");
    assertThat(run.exitCode()).isEqualTo(1);
    JsonNode report = json(run);
    assertThat(checks(report))
        .containsExactlyInAnyOrder(
            "dtype-rejected KVCachePoolBinding team-a/mixed",
            "dtype-rejected KVCachePoolBinding team-a/narrow");
    JsonNode mixed = binding(report, "mixed");
    assertThat(mixed.path("engines").toString())
        .contains("\"engine\":\"SGLang\",\"version\":\"0.5.4\",\"accepts\":true")
        .contains("\"engine\":\"vLLM\",\"version\":\"0.11.0\",\"accepts\":false")
        .contains("Deployment team-a/mixed-sglang", "ModelDeployment team-a/mixed-vllm");
    assertThat(mixed.path("acceptedByAll").toString())
        .contains("\"bfloat16\"")
        .doesNotContain("bf16");
    String rejected = report.path("findings").get(0).toString();
    assertThat(rejected).contains("vLLM 0.11.0 rejects dtype \\\"bf16\\\"", "bfloat16");
    assertThat(report.path("findings").get(1).path("message").asText())
        .startsWith("SGLang rejects dtype \"fp8\"");
  }

  @Test
  void roles_passing_the_flag_in_any_form_the_engine_reads_are_found() throws Exception {
    CliRun run = CliRun.of("preflight", "-f", STORE, "-f", scenario("own-flag"), "-o", "json");
    assertThat(run.exitCode()).isEqualTo(1);
    JsonNode report = json(run);
    assertThat(checks(report))
        .containsExactlyInAnyOrder(
            "role-passes-flag ModelDeployment team-a/ambiguous",
            "role-passes-flag ModelDeployment team-a/prefixed",
            "role-passes-flag ModelDeployment team-a/underscored");
    String underscored =
        StreamSupport.stream(report.path("findings").spliterator(), false)
            .filter(f -> f.path("object").asText().endsWith("/underscored"))
            .findFirst()
            .orElseThrow()
            .toString();
    assertThat(underscored)
        .contains(
            "spec.roles[0].extraArgs[2]",
            "keeps its own value \\\"fp8\\\"",
            "is invalid: spec.roles");
    assertThat(report.toString()).contains("could be");
  }

  @Test
  void templates_opting_into_injection_are_checked_by_the_webhook_once_each() throws Exception {
    CliRun run = CliRun.of("preflight", "-f", STORE, "-f", scenario("templates"), "-o", "json");
    assertThat(run.exitCode()).isEqualTo(1);
    assertThat(checks(json(run)))
        .containsExactlyInAnyOrder(
            "template-passes-flag Deployment team-a/own-flag",
            "template-passes-flag StatefulSet team-a/prefixed",
            "template-passes-flag CronJob team-a/nightly",
            "injection-refused Deployment team-a/shell-launch",
            "not-injected Pod team-a/missed");
    assertThat(run.out()).contains("FailedCreate", "sh -c");
  }

  @Test
  void a_stored_auto_binding_is_a_warning_not_a_break() throws Exception {
    CliRun run = CliRun.of("preflight", "-f", STORE, "-f", scenario("auto"), "-o", "json");
    assertThat(run.exitCode()).isZero();
    JsonNode report = json(run);
    assertThat(checks(report))
        .containsExactly("auto-binding KVCachePoolBinding team-a/legacy-auto");
    assertThat(report.path("findings").get(0).path("severity").asText()).isEqualTo("warning");
    assertThat(report.path("warnings").asInt()).isEqualTo(1);
  }

  @Test
  void the_table_groups_findings_and_colours_only_when_asked() {
    CliRun plain = CliRun.of("preflight", "-f", STORE, "-f", scenario("spelling"));
    assertThat(plain.exitCode()).isEqualTo(1);
    assertThat(plain.out())
        .contains("BINDINGS", "WILL BREAK OR BE REFUSED (2)", "WARNINGS (0)", "ROLLOUT")
        .contains("Fix before upgrading: 2 will break or be refused, 0 warnings.")
        .doesNotContain("\u001b[");
    CliRun coloured =
        CliRun.of("preflight", "-f", STORE, "-f", scenario("spelling"), "--color", "always");
    assertThat(coloured.out()).contains("\u001b[31mNO");
    CliRun clean = CliRun.of("preflight", "-f", STORE, "-f", scenario("clean"));
    assertThat(clean.out()).contains("Nothing will break: 0 will break or be refused, 0 warnings.");
  }

  @Test
  void a_setting_that_is_off_is_reported_and_the_checks_still_apply() throws Exception {
    Path off = Files.createTempFile("setting", ".yaml");
    Files.writeString(
        off,
        """
        apiVersion: gpustack.ai/v1
        kind: Setting
        metadata: {name: model-deployment-kv-cache-dtype-owned, namespace: gpustack-system}
        spec: {value: "false"}
        """);
    CliRun run =
        CliRun.of(
            "preflight",
            "-f",
            STORE,
            "-f",
            scenario("own-flag"),
            "-f",
            off.toString(),
            "-o",
            "json");
    assertThat(run.exitCode()).isEqualTo(1);
    JsonNode report = json(run);
    assertThat(checks(report))
        .contains("setting-off Setting gpustack-system/model-deployment-kv-cache-dtype-owned");
    assertThat(report.path("settings").path("model-deployment-kv-cache-dtype-owned").asText())
        .isEqualTo("false");
  }

  @Test
  void replicas_whose_hash_would_move_are_counted_per_trigger(@TempDir Path dir) throws Exception {
    // The replicas running now: today's render, except chat-vllm-server-0 from an older one.
    CliRun rendered = CliRun.of("render", "-f", STORE, "-f", scenario("clean"));
    assertThat(rendered.exitCode()).isZero();
    String pods =
        rendered.out().replaceFirst("(pod-spec-hash: \"[0-9a-f]+)\"", "$1-before-the-upgrade\"");
    Files.writeString(dir.resolve("pods.yaml"), pods);
    CliRun run =
        CliRun.of(
            "preflight", "-f", STORE, "-f", scenario("clean"), "-f", dir.toString(), "-o", "json");
    assertThat(run.exitCode()).as(run.err()).isZero();
    JsonNode rollouts = json(run).path("rollouts");
    assertThat(rollouts.toString())
        .contains(
            "{\"namespace\":\"team-a\",\"name\":\"chat-sglang\",\"replicas\":1,\"running\":1,"
                + "\"rollOnUpgrade\":0,\"rollOnSettingFlip\":1,\"note\":\"\"}")
        .contains(
            "{\"namespace\":\"team-a\",\"name\":\"chat-vllm\",\"replicas\":2,\"running\":2,"
                + "\"rollOnUpgrade\":1,\"rollOnSettingFlip\":2,\"note\":\"\"}");
    CliRun table =
        CliRun.of("preflight", "-f", STORE, "-f", scenario("clean"), "-f", dir.toString());
    assertThat(table.out()).containsPattern("chat-vllm +2 +2 +1 of 2 +2 of 2");
  }

  @Test
  void unreadable_input_exits_2(@TempDir Path dir) throws Exception {
    assertThat(CliRun.of("preflight", "-f", scenario("missing")).exitCode()).isEqualTo(2);
    Path kindless = dir.resolve("kindless.yaml");
    Files.writeString(kindless, "metadata: {name: x}\n");
    CliRun run = CliRun.of("preflight", "-f", kindless.toString());
    assertThat(run.exitCode()).isEqualTo(2);
    assertThat(run.err()).contains("kindless.yaml: a document without a kind");
    Path nameless = dir.resolve("nameless.yaml");
    Files.writeString(nameless, "apiVersion: v1\nkind: ConfigMap\n");
    CliRun unnamed = CliRun.of("preflight", "-f", nameless.toString());
    assertThat(unnamed.exitCode()).isEqualTo(2);
    assertThat(unnamed.err()).contains("ConfigMap (unnamed) has no metadata");
    assertThat(CliRun.of("preflight", "-f", STORE, "-o", "yaml").exitCode()).isEqualTo(2);
  }

  @Test
  void a_directory_built_with_kustomize_is_read_without_its_kustomization_file() {
    // examples/sandbox holds a kustomization.yaml beside the manifests it lists.
    CliRun run = CliRun.of("preflight", "-f", "../examples/sandbox", "-o", "json");
    assertThat(run.exitCode()).as(run.err()).isEqualTo(1);
    assertThat(run.out()).contains("\"legacy\"");
  }

  @Test
  void an_unreachable_cluster_exits_2(@TempDir Path dir) throws Exception {
    Path kubeconfig = dir.resolve("kubeconfig");
    Files.writeString(kubeconfig, ClientsTest.KUBECONFIG);
    CliRun run = CliRun.of("preflight", "--kubeconfig", kubeconfig.toString());
    assertThat(run.exitCode()).isEqualTo(2);
    assertThat(run.err()).startsWith("kvcache preflight: cannot");
  }
}
