package ai.gpustack.kvcache.operator.cli;

import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import ai.gpustack.kvcache.operator.Shell;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.regex.Pattern;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.MethodOrderer;
import org.junit.jupiter.api.Order;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestMethodOrder;
import org.junit.jupiter.api.io.TempDir;

/**
 * The real {@code kubectl}, with default flags, against {@code kvcache sandbox --serve} run as the
 * README runs it: each everyday command exits as it would against a cluster, prints no error
 * (kubectl's own warnings aside, none expected), and has its effect. Skipped, saying why, where
 * kubectl is not installed.
 */
@TestMethodOrder(MethodOrderer.OrderAnnotation.class)
class SandboxFidelityIT {
  /** What kubectl prints when something failed: an error, or client-go's error log lines. */
  private static final Pattern ERROR =
      Pattern.compile("(?m)^(error|Error|E\\d{4} |W\\d{4} .*(fail|error))|Failed to watch");

  @TempDir static Path dir;
  static Process sandbox;
  static Path kubeconfig;

  record Run(int exit, String out, String err) {
    Run ok() {
      assertThat(exit).as("exit code; stderr: %s", err).isZero();
      return quiet();
    }

    Run quiet() {
      assertThat(ERROR.matcher(err).find()).as("stderr: %s", err).isFalse();
      return this;
    }
  }

  @BeforeAll
  static void start() throws Exception {
    assumeTrue(Shell.onPath("kubectl"), "kubectl is not on the PATH; this suite runs it");
    kubeconfig = dir.resolve("sandbox.kubeconfig");
    sandbox =
        ShippedJar.start(
            dir.resolve("sandbox.log"),
            "sandbox",
            "--serve",
            "--kubeconfig-out",
            kubeconfig.toString());
    long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(90);
    while (!Files.exists(dir.resolve("sandbox.log"))
        || !Files.readString(dir.resolve("sandbox.log")).contains("ready: ")) {
      assertThat(sandbox.isAlive()).as("the sandbox exited: see %s", dir).isTrue();
      assertThat(System.nanoTime()).as("the sandbox did not get ready").isLessThan(deadline);
      Thread.sleep(200);
    }
    write(
        "md-a.yaml",
        """
        apiVersion: worker.gpustack.ai/v1
        kind: ModelDeployment
        metadata: {name: fid-a, namespace: team-a, labels: {suite: fidelity}}
        spec:
          model: {name: qwen/qwen3-8b}
          engine: {name: vLLM}
          kvCache: {poolRef: {name: chat}}
          roles: [{name: server, image: "vllm/vllm-openai:v0.11.0"}]
        """);
    // The role's defaulted fields are written out: defaults the API server adds inside a list make
    // every re-apply of a file without them a "configured", on a cluster as here.
    write(
        "md-b.yaml",
        """
        apiVersion: worker.gpustack.ai/v1
        kind: ModelDeployment
        metadata: {name: fid-b, namespace: team-a, labels: {suite: fidelity, stage: first}}
        spec:
          model: {name: qwen/qwen3-8b}
          engine: {name: SGLang}
          kvCache: {poolRef: {name: chat}}
          roles: [{name: server, image: "lmsysorg/sglang:v0.5.4", kind: Server, replicas: 1, extraArgs: ["--mem-fraction-static", "0.8"]}]
        """);
    // Edited: a label removed, one added, the role's args changed and its replicas raised.
    write(
        "md-b-edited.yaml",
        """
        apiVersion: worker.gpustack.ai/v1
        kind: ModelDeployment
        metadata: {name: fid-b, namespace: team-a, labels: {suite: fidelity, tier: gold}}
        spec:
          model: {name: qwen/qwen3-8b}
          engine: {name: SGLang}
          kvCache: {poolRef: {name: chat}}
          roles: [{name: server, image: "lmsysorg/sglang:v0.5.4", kind: Server, replicas: 2, extraArgs: ["--mem-fraction-static", "0.7"]}]
        """);
    write(
        "md-unknown-field.yaml",
        """
        apiVersion: worker.gpustack.ai/v1
        kind: ModelDeployment
        metadata: {name: fid-c, namespace: team-a}
        spec:
          model: {name: qwen/qwen3-8b, revision: main}
          engine: {name: vLLM}
          roles: [{name: server, image: "vllm/vllm-openai:v0.11.0"}]
        """);
    write(
        "web.yaml",
        """
        apiVersion: apps/v1
        kind: Deployment
        metadata: {name: fid-env, namespace: team-a}
        spec:
          replicas: 0
          selector: {matchLabels: {app: fid-env}}
          template:
            metadata: {labels: {app: fid-env}}
            spec:
              containers:
                - name: web
                  image: nginx:1.27
                  env: [{name: A, value: "1"}, {name: B, value: "2"}]
        """);
    write(
        "pod.yaml",
        """
        apiVersion: v1
        kind: Pod
        metadata: {name: fid-pod, namespace: team-a}
        spec:
          containers:
            - name: web
              image: nginx:1.27
              env: [{name: A, value: "1"}, {name: B, value: "2"}]
        """);
  }

  @AfterAll
  static void stop() throws Exception {
    if (sandbox != null) {
      sandbox.destroy();
      sandbox.waitFor(20, TimeUnit.SECONDS);
    }
  }

  static void write(String name, String text) throws IOException {
    Files.writeString(dir.resolve(name), text);
  }

  static Run kubectl(String args) throws Exception {
    return sh("kubectl " + args);
  }

  static Run sh(String command) throws Exception {
    ProcessBuilder pb = new ProcessBuilder("bash", "-c", command).directory(dir.toFile());
    pb.environment().put("KUBECONFIG", kubeconfig.toString());
    pb.environment().put("HOME", dir.toString());
    Process p = pb.start();
    String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
    String err = new String(p.getErrorStream().readAllBytes(), StandardCharsets.UTF_8);
    assertThat(p.waitFor(90, TimeUnit.SECONDS)).as("kubectl %s finished", command).isTrue();
    return new Run(p.exitValue(), out, err);
  }

  @Test
  @Order(1)
  void discovery_lists_the_groups_and_resources() throws Exception {
    assertThat(kubectl("api-versions").ok().out())
        .contains("worker.gpustack.ai/v1", "gpustack.ai/v1", "apps/v1", "v1");
    Run resources = kubectl("api-resources").ok();
    assertThat(resources.out())
        .containsPattern(
            "modeldeployments\\s+md\\s+worker.gpustack.ai/v1\\s+true\\s+ModelDeployment")
        .containsPattern("kvcachepoolbindings\\s+kvcpb\\s+worker.gpustack.ai/v1\\s+true");
  }

  @Test
  @Order(2)
  void create_validates_on_the_server_and_a_second_create_is_already_exists() throws Exception {
    assertThat(kubectl("create -f md-a.yaml").ok().out())
        .contains("modeldeployment.worker.gpustack.ai/fid-a created");
    Run again = kubectl("create -f md-a.yaml");
    assertThat(again.exit()).isEqualTo(1);
    assertThat(again.err().strip())
        .isEqualTo(
            "Error from server (AlreadyExists): error when creating \"md-a.yaml\":"
                + " modeldeployments.worker.gpustack.ai \"fid-a\" already exists");
  }

  @Test
  @Order(3)
  void an_unknown_field_is_refused_under_strict_validation_and_warned_and_dropped_under_warn()
      throws Exception {
    Run strict = kubectl("create -f md-unknown-field.yaml");
    assertThat(strict.exit()).isEqualTo(1);
    assertThat(strict.err())
        .contains(
            "Error from server (BadRequest): error when creating \"md-unknown-field.yaml\":"
                + " ModelDeployment in version \"v1\" cannot be handled as a ModelDeployment:"
                + " strict decoding error: unknown field \"spec.model.revision\"");
    Run warn = kubectl("create --validate=warn -f md-unknown-field.yaml").ok();
    assertThat(warn.err()).contains("Warning: unknown field \"spec.model.revision\"");
    assertThat(kubectl("get md fid-c -n team-a -o jsonpath={.spec.model}").ok().out())
        .doesNotContain("revision");
    kubectl("delete md fid-c -n team-a").ok();
  }

  @Test
  @Order(4)
  void apply_creates_then_merges_an_edited_file_three_ways() throws Exception {
    assertThat(kubectl("apply -f md-b.yaml").ok().out())
        .contains("modeldeployment.worker.gpustack.ai/fid-b created");
    assertThat(kubectl("apply -f md-b.yaml").ok().out()).contains("fid-b unchanged");
    assertThat(kubectl("apply -f md-b-edited.yaml").ok().out()).contains("fid-b configured");
    Run labels = kubectl("get md fid-b -n team-a -o jsonpath={.metadata.labels}").ok();
    assertThat(labels.out()).contains("\"tier\":\"gold\"").doesNotContain("stage");
    assertThat(
            kubectl(
                    "get md fid-b -n team-a -o jsonpath={.spec.roles[0].replicas}/{.spec.roles[0].extraArgs}")
                .ok()
                .out())
        .isEqualTo("2/[\"--mem-fraction-static\",\"0.7\"]");
  }

  @Test
  @Order(5)
  void explain_prints_the_crd_fields_and_their_descriptions() throws Exception {
    Run kvCache = kubectl("explain modeldeployments.spec.kvCache").ok();
    assertThat(kvCache.out())
        .contains(
            "KIND:       ModelDeployment",
            "FIELD: kvCache <Object>",
            "FIELDS:",
            "poolRef\t<Object>");
    Run recursive = kubectl("explain modeldeployments --recursive").ok();
    assertThat(recursive.out())
        .contains("kvCache\t<Object>", "poolRef\t<Object>", "extraArgs\t<[]string>");
    Run binding = kubectl("explain kvcpb.spec.domain.dtype").ok();
    assertThat(binding.out()).contains("FIELD: dtype <string>");
  }

  @Test
  @Order(6)
  void wait_for_a_condition_finishes_quietly() throws Exception {
    Run wait = kubectl("wait --for=condition=DtypeAccepted md/fid-a -n team-a --timeout=60s").ok();
    assertThat(wait.out()).contains("modeldeployment.worker.gpustack.ai/fid-a condition met");
    assertThat(wait.err()).isEmpty();
  }

  @Test
  @Order(7)
  void get_prints_jsonpath_custom_columns_yaml_and_json() throws Exception {
    assertThat(kubectl("get md fid-a -n team-a -o jsonpath={.spec.engine.name}").ok().out())
        .isEqualTo("vLLM");
    assertThat(
            kubectl(
                    "get md -n team-a -l suite=fidelity -o custom-columns=NAME:.metadata.name,ENGINE:.spec.engine.name")
                .ok()
                .out())
        .containsPattern("fid-a\\s+vLLM")
        .containsPattern("fid-b\\s+SGLang");
    assertThat(kubectl("get md fid-a -n team-a -o yaml").ok().out())
        .contains("kind: ModelDeployment", "name: fid-a");
    assertThat(kubectl("get md fid-a -n team-a -o json").ok().out())
        .contains("\"kind\": \"ModelDeployment\"");
    Run missing = kubectl("get md nope -n team-a");
    assertThat(missing.exit()).isEqualTo(1);
    assertThat(missing.err().strip())
        .isEqualTo(
            "Error from server (NotFound): modeldeployments.worker.gpustack.ai \"nope\" not found");
  }

  @Test
  @Order(8)
  void label_annotate_and_patch_change_what_they_name() throws Exception {
    assertThat(kubectl("label md fid-a -n team-a tier=silver").ok().out()).contains("labeled");
    assertThat(kubectl("annotate md fid-a -n team-a note=hello").ok().out()).contains("annotated");
    kubectl("patch md fid-a -n team-a --type merge -p '{\"metadata\":{\"labels\":{\"m\":\"1\"}}}'")
        .ok();
    kubectl(
            "patch md fid-a -n team-a --type json"
                + " -p '[{\"op\":\"add\",\"path\":\"/metadata/labels/j\",\"value\":\"2\"}]'")
        .ok();
    assertThat(kubectl("get md fid-a -n team-a -o jsonpath={.metadata.labels}").ok().out())
        .contains("\"tier\":\"silver\"", "\"m\":\"1\"", "\"j\":\"2\"");
    assertThat(
            kubectl("get md fid-a -n team-a -o jsonpath={.metadata.annotations.note}").ok().out())
        .isEqualTo("hello");
    // A custom resource takes no strategic merge patch, kubectl's default type: as on a cluster.
    Run strategic =
        kubectl("patch md fid-a -n team-a -p '{\"metadata\":{\"labels\":{\"s\":\"1\"}}}'");
    assertThat(strategic.exit()).isEqualTo(1);
    assertThat(strategic.err())
        .contains(
            "error: application/strategic-merge-patch+json is not supported by"
                + " worker.gpustack.ai/v1, Kind=ModelDeployment");
  }

  @Test
  @Order(9)
  void a_pods_spec_is_fixed_and_a_strategic_merge_patch_merges_a_templates_lists_by_key()
      throws Exception {
    kubectl("create -f pod.yaml").ok();
    Run fixed =
        kubectl(
            "patch pod fid-pod -n team-a"
                + " -p '{\"spec\":{\"containers\":[{\"name\":\"web\",\"env\":[{\"name\":\"B\",\"value\":\"3\"}]}]}}'");
    assertThat(fixed.exit()).isEqualTo(1);
    assertThat(fixed.err())
        .startsWith(
            "The Pod \"fid-pod\" is invalid: spec: Forbidden: pod updates may not change fields"
                + " other than `spec.containers[*].image`");
    kubectl("create -f web.yaml").ok();
    kubectl(
            "patch deploy fid-env -n team-a"
                + " -p '{\"spec\":{\"template\":{\"spec\":{\"containers\":[{\"name\":\"web\",\"env\":[{\"name\":\"B\",\"value\":\"3\"}]}]}}}}'")
        .ok();
    assertThat(
            kubectl(
                    "get deploy fid-env -n team-a"
                        + " -o jsonpath={.spec.template.spec.containers[0].env}")
                .ok()
                .out())
        .isEqualTo("[{\"name\":\"A\",\"value\":\"1\"},{\"name\":\"B\",\"value\":\"3\"}]");
  }

  @Test
  @Order(10)
  void replace_and_edit_write_the_whole_object() throws Exception {
    // The embedded operator may write fid-a's status between the read and the replace; the API
    // server then refuses the stale resourceVersion, and a user reads again, as here.
    Run replace = null;
    for (int attempt = 0; attempt < 5; attempt++) {
      sh("kubectl get md fid-a -n team-a -o yaml | sed 's/replicas: 1/replicas: 3/' > replaced.yaml")
          .ok();
      replace = kubectl("replace -f replaced.yaml");
      if (!replace.err().contains("Error from server (Conflict)")) {
        break;
      }
    }
    assertThat(replace.ok().out()).contains("fid-a replaced");
    assertThat(kubectl("get md fid-a -n team-a -o jsonpath={.spec.roles[0].replicas}").ok().out())
        .isEqualTo("3");
    Files.writeString(
        dir.resolve("editor.sh"), "#!/bin/sh\nsed -i 's/replicas: 3/replicas: 1/' \"$1\"\n");
    dir.resolve("editor.sh").toFile().setExecutable(true);
    Run edit = sh("EDITOR=" + dir.resolve("editor.sh") + " kubectl edit md fid-a -n team-a").ok();
    assertThat(edit.out()).contains("fid-a edited");
    assertThat(kubectl("get md fid-a -n team-a -o jsonpath={.spec.roles[0].replicas}").ok().out())
        .isEqualTo("1");
  }

  @Test
  @Order(11)
  void describe_and_diff_read_the_live_object() throws Exception {
    assertThat(kubectl("describe md fid-a -n team-a").ok().out())
        .contains("Name:", "fid-a", "Kind:", "ModelDeployment");
    assertThat(kubectl("diff -f md-b-edited.yaml").ok().out()).isEmpty();
    Run diff = kubectl("diff -f md-b.yaml").quiet();
    assertThat(diff.exit()).as("1: differences found").isEqualTo(1);
    assertThat(diff.out())
        .containsPattern("(?m)^-\\s+replicas: 2$")
        .containsPattern("(?m)^\\+\\s+stage: first$");
  }

  @Test
  @Order(12)
  void a_bounded_watch_prints_the_rows_and_every_change() throws Exception {
    Run watch =
        sh(
            "(timeout 6 kubectl get md fid-a -n team-a -w > watch.out 2> watch.err &);"
                + " sleep 3; kubectl label md fid-a -n team-a watched=yes > /dev/null; sleep 4;"
                + " cat watch.out; cat watch.err >&2");
    watch.quiet();
    assertThat(watch.err()).isEmpty();
    List<String> rows = new ArrayList<>(watch.out().lines().toList());
    assertThat(rows.get(0)).startsWith("NAME").contains("ENGINE", "PHASE");
    assertThat(rows.stream().filter(l -> l.startsWith("fid-a")).count())
        .as("the row, then the row again after the label: %s", rows)
        .isGreaterThanOrEqualTo(2);
  }

  @Test
  @Order(13)
  void auth_can_i_answers_for_the_sandbox_user() throws Exception {
    assertThat(kubectl("auth can-i create modeldeployments -n team-a").ok().out().strip())
        .isEqualTo("yes");
    assertThat(kubectl("auth can-i --list -n team-a").ok().out()).contains("*.*");
  }

  @Test
  @Order(14)
  void events_are_listed_with_their_columns() throws Exception {
    Run events = kubectl("get events -n team-a").ok();
    assertThat(events.out().lines().findFirst().orElseThrow().split("\\s{2,}"))
        .containsExactly("LAST SEEN", "TYPE", "REASON", "OBJECT", "MESSAGE");
    assertThat(events.out())
        .containsPattern("Warning\\s+FailedCreate\\s+deployment/injected-own-flag");
  }

  @Test
  @Order(15)
  void delete_waits_for_the_finalizer_and_wait_for_delete_returns() throws Exception {
    Run delete = kubectl("delete md fid-b -n team-a").ok();
    assertThat(delete.out()).contains("\"fid-b\" deleted");
    assertThat(delete.err()).isEmpty();
    assertThat(kubectl("get md fid-b -n team-a").exit()).isEqualTo(1);
    Run waited =
        sh("(kubectl wait --for=delete md/fid-a -n team-a --timeout=60s > wait.out 2> wait.err;"
                + " echo $? > wait.rc) & sleep 2; kubectl delete md fid-a -n team-a --wait=false;"
                + " wait; cat wait.out; cat wait.err >&2; exit $(cat wait.rc)")
            .ok();
    assertThat(waited.out()).contains("condition met");
  }

  @Test
  @Order(16)
  void the_examples_apply_through_kustomize() throws Exception {
    Path examples = Path.of("..", "examples", "sandbox").toAbsolutePath().normalize();
    Run apply = sh("kubectl kustomize " + examples + " | kubectl apply -f -").ok();
    assertThat(apply.out())
        .contains(
            "kvcachebackend.worker.gpustack.ai/mooncake",
            "kvcachepoolbinding.worker.gpustack.ai/chat",
            "modeldeployment.worker.gpustack.ai/chat-vllm",
            "deployment.apps/injected-vllm");
  }

  @Test
  @Order(17)
  void scale_and_rollout_status_follow_an_injected_deployment() throws Exception {
    assertThat(kubectl("scale deploy/injected-vllm -n team-a --replicas=2").ok().out())
        .contains("deployment.apps/injected-vllm scaled");
    assertThat(kubectl("rollout status deploy/injected-vllm -n team-a --timeout=60s").ok().out())
        .contains("deployment \"injected-vllm\" successfully rolled out");
    assertThat(kubectl("get deploy injected-vllm -n team-a").ok().out())
        .containsPattern("injected-vllm\\s+2/2\\s+2\\s+2");
    Run args =
        kubectl(
                "get pods -n team-a -l app=injected-vllm"
                    + " -o 'jsonpath={range .items[*]}{.spec.containers[0].args}{\"\\n\"}{end}'")
            .ok();
    assertThat(args.out().lines().toList())
        .hasSize(2)
        .allSatisfy(l -> assertThat(l).endsWith("\"--kv-cache-dtype\",\"bfloat16\"]"));
  }

  @Test
  @Order(18)
  void kubectl_create_of_built_in_kinds_sends_protobuf_and_is_read() throws Exception {
    assertThat(kubectl("create namespace fid-ns").ok().out()).contains("namespace/fid-ns created");
    kubectl("create configmap fid-cm -n fid-ns --from-literal=mode=fast").ok();
    kubectl("create secret generic fid-secret -n fid-ns --from-literal=token=abc").ok();
    kubectl("create deployment fid-web -n fid-ns --image=nginx:1.27 --replicas=0").ok();
    assertThat(kubectl("get cm fid-cm -n fid-ns -o jsonpath={.data.mode}").ok().out())
        .isEqualTo("fast");
    assertThat(kubectl("get secret fid-secret -n fid-ns -o jsonpath={.data.token}").ok().out())
        .isEqualTo("YWJj");
    assertThat(kubectl("get deploy fid-web -n fid-ns -o jsonpath={.spec.replicas}").ok().out())
        .as("an explicit zero is kept")
        .isEqualTo("0");
    Run logs = kubectl("logs injected-vllm-0 -n team-a");
    assertThat(logs.exit()).isEqualTo(1);
    assertThat(logs.err().strip())
        .isEqualTo(
            "Error from server (BadRequest): the sandbox runs no containers,"
                + " so pod \"injected-vllm-0\" has no log to serve");
  }

  @Test
  @Order(19)
  void the_pod_proxy_answers_each_replicas_engine_report() throws Exception {
    assertThat(
            kubectl(
                    "get --raw /api/v1/namespaces/team-a/pods/chat-vllm-server-0:8000/proxy/metrics")
                .ok()
                .out())
        .contains("vllm:cache_config_info{")
        .contains("cache_dtype=\"bfloat16\"");
    assertThat(
            kubectl(
                    "get --raw"
                        + " /api/v1/namespaces/team-a/pods/chat-sglang-server-0:30000/proxy/server_info")
                .ok()
                .out())
        .contains("\"kv_cache_dtype\":\"bfloat16\"");
    Run closed =
        kubectl("get --raw /api/v1/namespaces/team-a/pods/chat-vllm-server-0:9999/proxy/metrics");
    assertThat(closed.exit()).isEqualTo(1);
    assertThat(closed.err()).contains("ServiceUnavailable");
  }
}
