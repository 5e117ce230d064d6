package ai.gpustack.kvcache.operator.e2e;

import static org.assertj.core.api.Assertions.assertThat;

import ai.gpustack.kvcache.operator.Shell;
import java.nio.file.Files;
import java.time.Duration;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.MethodOrderer;
import org.junit.jupiter.api.Order;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestMethodOrder;
import org.junit.jupiter.api.extension.ExtendWith;

/**
 * Part 3: the webhook as the real API server calls it (its AdmissionReview, timeouts, {@code
 * failurePolicy}, {@code matchPolicy}, selectors) through kubectl: every refusal word for word as
 * kubectl prints what the API server relays; an opted-in Deployment's Pods, made by the real
 * ReplicaSet controller, ending in the pair; a template passing the flag becoming that controller's
 * {@code FailedCreate}; a version outside the engine's scheme; and with the webhook stopped, what
 * {@code failurePolicy} promises.
 */
@ExtendWith(RealCluster.class)
@TestMethodOrder(MethodOrderer.OrderAnnotation.class)
@Order(3)
class WebhookE2E {
  static final String NS = "webhook-e2e";
  static Installation installed;
  static Shell kubectl;

  @BeforeAll
  static void store(Installation installation) throws Exception {
    installed = installation;
    kubectl = installation.admin("webhook");
    Examples.apply(kubectl);
    write(
        "store.yaml",
        """
        apiVersion: v1
        kind: Namespace
        metadata: {name: %1$s}
        ---
        apiVersion: worker.gpustack.ai/v1
        kind: KVCachePool
        metadata: {name: %1$s}
        spec: {backends: [mooncake], quota: {total: 1Ti}}
        ---
        apiVersion: worker.gpustack.ai/v1
        kind: KVCachePoolBinding
        metadata: {name: chat, namespace: %1$s}
        spec: {poolRef: {name: %1$s}, domain: {name: webhook-chat, blockSize: 16, dtype: bfloat16}, quota: {ceiling: 100Gi}}
        """
            .formatted(NS));
    kubectl.kubectl("apply -f store.yaml").ok();
  }

  static void write(String name, String text) throws Exception {
    Files.writeString(kubectl.home().resolve(name), text);
  }

  static String md(String name, String role) {
    return """
        apiVersion: worker.gpustack.ai/v1
        kind: ModelDeployment
        metadata: {name: %s, namespace: %s}
        spec:
          model: {name: qwen/qwen3-8b}
          engine: {name: vLLM, version: "0.29.0"}
          kvCache: {poolRef: {name: chat}}
          roles: [%s]
        """
        .formatted(name, NS, role);
  }

  /** A refusal as kubectl prints it: exit 1 and stderr, whitespace as printed. */
  static String refused(String command) {
    Shell.Run run = kubectl.sh(command);
    assertThat(run.exit()).as("refused: %s; out: %s", command, run.out()).isEqualTo(1);
    return run.err().strip();
  }

  @Test
  @Order(1)
  void a_role_passing_the_flag_is_refused_on_create_one_error_per_occurrence() throws Exception {
    write(
        "own-flag.yaml",
        md(
            "own-flag",
            "{name: server, extraArgs: [\"--kv-cache-dtype\", \"fp8\", \"--kv_cache_dtype=fp8\"]}"));
    assertThat(refused("kubectl create -f own-flag.yaml"))
        .isEqualTo(
            "Error from server (Forbidden): error when creating \"own-flag.yaml\": admission"
                + " webhook \"modeldeployments.kvcache.gpustack.ai\" denied the request:"
                + " ModelDeployment \"own-flag\" is invalid: [spec.roles[0].extraArgs[0]:"
                + " Forbidden: role \"server\" passes --kv-cache-dtype"
                + " while it attaches a KV cache pool, but its dtype comes from KVCachePoolBinding"
                + " \"chat\", handed to every engine attached through it: engines writing two"
                + " dtypes into one reuse domain read each other's blocks wrong; remove this entry"
                + " and name a Binding that declares the dtype you want, or set roles[].command to"
                + " own the role's whole argv,"
                + " spec.roles[0].extraArgs[2]: Forbidden: role \"server\" passes --kv_cache_dtype,"
                + " which engine \"vLLM\" reads as --kv-cache-dtype"
                + " while it attaches a KV cache pool, but its dtype comes from KVCachePoolBinding"
                + " \"chat\", handed to every engine attached through it: engines writing two"
                + " dtypes into one reuse domain read each other's blocks wrong; remove this entry"
                + " and name a Binding that declares the dtype you want, or set roles[].command to"
                + " own the role's whole argv]");
    assertThat(kubectl.kubectl("get md own-flag -n " + NS).exit()).isEqualTo(1);
  }

  @Test
  @Order(2)
  void an_identity_edit_and_an_added_flag_are_refused_on_update() throws Exception {
    write("edited.yaml", md("edited", "{name: server}"));
    kubectl.kubectl("create -f edited.yaml").ok();
    String engine =
        refused(
            "kubectl patch md edited -n "
                + NS
                + " --type merge -p '{\"spec\":{\"engine\":{\"name\":\"SGLang\"}}}'");
    // The CRD's own transition rule answers first: the API server validates before it calls
    // validating webhooks.
    assertThat(engine)
        .isEqualTo(
            "The ModelDeployment \"edited\" is invalid: spec.engine.name: Forbidden: engine.name"
                + " is an identity field: a different value describes a different deployment,"
                + " which is created rather than edited");
    String flag =
        refused(
            "kubectl patch md edited -n "
                + NS
                + " --type json -p '[{\"op\":\"add\",\"path\":\"/spec/roles/0/extraArgs\","
                + "\"value\":[\"--kv-cache-dt\",\"fp8\"]}]'");
    assertThat(flag)
        .startsWith(
            "Error from server (Forbidden): admission webhook"
                + " \"modeldeployments.kvcache.gpustack.ai\" denied the request: ModelDeployment"
                + " \"edited\" is invalid: spec.roles[0].extraArgs[0]: Forbidden: role \"server\""
                + " passes --kv-cache-dt, which engine \"vLLM\" cannot resolve: it could be"
                + " --kv-cache-dtype, --kv-cache-dtype-skip-layers (an ambiguous prefix: the engine"
                + " exits on it) while it attaches a KV cache pool");
  }

  @Test
  @Order(3)
  void binding_rules_refuse_auto_a_claimed_domain_and_ceilings_over_the_pool() throws Exception {
    String binding =
        """
        apiVersion: worker.gpustack.ai/v1
        kind: KVCachePoolBinding
        metadata: {name: %s, namespace: %s}
        spec: {poolRef: {name: webhook-e2e}, domain: {name: %s, blockSize: 16, dtype: %s}, quota: {ceiling: %s}}
        """;
    write("auto.yaml", binding.formatted("auto", NS, "webhook-auto", "auto", "1Gi"));
    assertThat(refused("kubectl create -f auto.yaml"))
        .startsWith(
            "Error from server (Forbidden): error when creating \"auto.yaml\": admission webhook"
                + " \"kvcachepoolbindings.kvcache.gpustack.ai\" denied the request:"
                + " KVCachePoolBinding \"auto\" is invalid: spec.domain.dtype:")
        .contains("\"auto\"");
    write("claimed.yaml", binding.formatted("claimed", NS, "team-a-chat", "bfloat16", "1Gi"));
    assertThat(refused("kubectl create -f claimed.yaml"))
        .contains(
            "spec.domain.name: Duplicate value: \"team-a-chat\": domain \"team-a-chat\" is already"
                + " claimed by a KVCachePoolBinding in another namespace")
        .doesNotContain("team-a/");
    write("ceiling.yaml", binding.formatted("ceiling", NS, "webhook-big", "bfloat16", "5Ti"));
    assertThat(refused("kubectl create -f ceiling.yaml"))
        .contains("spec.quota.ceiling: Invalid value: \"5Ti\": must not exceed the pool's own");
    write("half.yaml", binding.formatted("half", NS, "webhook-half", "bfloat16", "600Gi"));
    kubectl.kubectl("create -f half.yaml").ok();
    write("more.yaml", binding.formatted("more", NS, "webhook-more", "bfloat16", "400Gi"));
    assertThat(refused("kubectl create -f more.yaml"))
        .contains(
            "spec.quota.ceiling: Invalid value: \"400Gi\": would take the ceilings of the Bindings"
                + " on KVCachePool \"webhook-e2e\" to 1100Gi, over its spec.quota.total of 1Ti (the"
                + " others reserve 700Gi)");
  }

  @Test
  @Order(4)
  void a_setting_that_is_not_a_boolean_is_refused() {
    assertThat(
            refused(
                "kubectl -n gpustack-system patch setting model-deployment-kv-cache-dtype-owned"
                    + " --type merge -p '{\"spec\":{\"value\":\"yes\"}}'"))
        .contains("admission webhook \"settings.kvcache.gpustack.ai\" denied the request")
        .contains("must be a boolean");
  }

  @Test
  @Order(5)
  void a_version_outside_the_engines_scheme_is_refused_naming_the_field_and_the_scheme()
      throws Exception {
    write("latest.yaml", md("latest", "{name: server}").replace("\"0.29.0\"", "latest"));
    assertThat(refused("kubectl create -f latest.yaml"))
        .contains(
            "admission webhook \"modeldeployments.kvcache.gpustack.ai\" denied the request:"
                + " ModelDeployment \"latest\" is invalid: spec.engine.version: Invalid value:"
                + " \"latest\": engine \"vLLM\" numbers its versions as a release number such as"
                + " 0.11.0 (PEP 440)");
    assertThat(kubectl.kubectl("get md latest -n " + NS).exit()).isEqualTo(1);
    write(
        "build-numbered.yaml",
        """
        apiVersion: v1
        kind: Pod
        metadata:
          name: build-numbered
          namespace: %s
          labels: {kvcache.gpustack.ai/inject: "true"}
          annotations:
            kvcache.gpustack.ai/binding: chat
            kvcache.gpustack.ai/engine: vLLM
            kvcache.gpustack.ai/engine-version: b4500
        spec:
          containers: [{name: vllm, image: vllm/vllm-openai:v0.29.0, command: [vllm], args: [serve, m]}]
        """
            .formatted(NS));
    assertThat(refused("kubectl create -f build-numbered.yaml"))
        .contains("admission webhook \"pod-injection.kvcache.gpustack.ai\" denied the request")
        .contains(
            "metadata.annotations[kvcache.gpustack.ai/engine-version]: Invalid value: \"b4500\"");
  }

  @Test
  @Order(6)
  void an_opted_in_deployments_pods_from_the_real_replica_set_end_in_the_pair() throws Exception {
    write(
        "injected-deployment.yaml",
        """
        apiVersion: apps/v1
        kind: Deployment
        metadata: {name: injected, namespace: %s}
        spec:
          replicas: 2
          selector: {matchLabels: {app: injected}}
          template:
            metadata:
              labels: {app: injected, kvcache.gpustack.ai/inject: "true"}
              annotations: {kvcache.gpustack.ai/binding: chat, kvcache.gpustack.ai/engine: vLLM}
            spec:
              containers:
                - {name: vllm, image: vllm/vllm-openai:v0.29.0, command: [vllm], args: [serve, m]}
        """
            .formatted(NS));
    kubectl.kubectl("apply -f injected-deployment.yaml").ok();
    Shell.Run args =
        kubectl.until(
            "kubectl get pods -n "
                + NS
                + " -l app=injected"
                + " -o jsonpath='{range .items[*]}{.spec.containers[0].args}{\"\\n\"}{end}'",
            r -> r.out().lines().count() == 2,
            Duration.ofSeconds(60));
    assertThat(args.out().lines().toList())
        .hasSize(2)
        .allSatisfy(
            l ->
                assertThat(l)
                    .startsWith("[\"serve\",\"m\",\"--kv-transfer-config\",")
                    .endsWith(",\"--kv-cache-dtype\",\"bfloat16\"]"));
    assertThat(
            kubectl
                .kubectl(
                    "get pods -n "
                        + NS
                        + " -l app=injected -o jsonpath='{.items[0].metadata.ownerReferences[0].kind}'")
                .ok()
                .out())
        .isEqualTo("ReplicaSet");
  }

  @Test
  @Order(7)
  void a_template_passing_the_flag_is_the_replica_set_controllers_failed_create() throws Exception {
    write(
        "own-flag-deployment.yaml",
        """
        apiVersion: apps/v1
        kind: Deployment
        metadata: {name: own-flag, namespace: %s}
        spec:
          replicas: 1
          selector: {matchLabels: {app: own-flag}}
          template:
            metadata:
              labels: {app: own-flag, kvcache.gpustack.ai/inject: "true"}
              annotations: {kvcache.gpustack.ai/binding: chat, kvcache.gpustack.ai/engine: vLLM}
            spec:
              containers:
                - {name: vllm, image: vllm/vllm-openai:v0.29.0, command: [vllm], args: [serve, m, --kv-cache-dtype, fp8]}
        """
            .formatted(NS));
    kubectl.kubectl("apply -f own-flag-deployment.yaml").ok();
    Shell.Run events =
        kubectl.until(
            "kubectl get events -n "
                + NS
                + " --field-selector reason=FailedCreate"
                + " -o jsonpath='{range .items[*]}{.involvedObject.kind}/{.involvedObject.name}: {.message}{\"\\n\"}{end}'",
            r -> r.out().contains("own-flag") && r.out().contains("passes --kv-cache-dtype"),
            Duration.ofSeconds(60));
    assertThat(events.out())
        .containsPattern(
            "ReplicaSet/own-flag-[a-z0-9]+: Error creating: admission webhook"
                + " \"pod-injection.kvcache.gpustack.ai\" denied the request: Pod"
                + " \"own-flag-[a-z0-9]+-\\(generated\\)\" is invalid:"
                + " spec.containers\\[0\\].args\\[2\\]: Forbidden: container \"vllm\" passes"
                + " --kv-cache-dtype while it attaches a KV cache pool");
    assertThat(kubectl.kubectl("get pods -n " + NS + " -l app=own-flag -o name").ok().out())
        .isEmpty();
    kubectl.kubectl("delete deployment own-flag -n " + NS).ok();
  }

  @Test
  @Order(8)
  void with_the_webhook_stopped_its_writes_are_refused_and_deletions_still_go_through()
      throws Exception {
    write("stopped.yaml", md("stopped", "{name: server}"));
    write(
        "opted-in.yaml",
        """
        apiVersion: v1
        kind: Pod
        metadata:
          name: opted-in
          namespace: %1$s
          labels: {kvcache.gpustack.ai/inject: "true"}
          annotations: {kvcache.gpustack.ai/binding: chat, kvcache.gpustack.ai/engine: vLLM}
        spec:
          containers: [{name: vllm, image: vllm/vllm-openai:v0.29.0, command: [vllm], args: [serve, m]}]
        ---
        apiVersion: v1
        kind: Pod
        metadata: {name: plain, namespace: %1$s}
        spec:
          containers: [{name: web, image: nginx:1.27}]
        """
            .formatted(NS));
    installed.stopOperator();
    try {
      assertThat(refused("kubectl create -f stopped.yaml"))
          .startsWith(
              "Error from server (InternalError): error when creating \"stopped.yaml\": Internal"
                  + " error occurred: failed calling webhook"
                  + " \"modeldeployments.kvcache.gpustack.ai\"");
      Shell.Run pods = kubectl.kubectl("create -f opted-in.yaml");
      assertThat(pods.exit()).isEqualTo(1);
      assertThat(pods.err())
          .contains("failed calling webhook \"pod-injection.kvcache.gpustack.ai\"");
      assertThat(pods.out()).contains("pod/plain created");
      Shell.Run delete = kubectl.kubectl("delete md edited -n " + NS + " --wait=false").ok();
      assertThat(delete.out()).contains("\"edited\" deleted");
      assertThat(
              kubectl
                  .kubectl("get md edited -n " + NS + " -o jsonpath={.metadata.deletionTimestamp}")
                  .ok()
                  .out())
          .as("the deletion is recorded; the finalizer waits for the operator")
          .isNotEmpty();
    } finally {
      installed.startOperator();
    }
    kubectl.kubectl("wait --for=delete md/edited -n " + NS + " --timeout=90s").ok();
    assertThat(kubectl.kubectl("create -f opted-in.yaml").out())
        .as("injected again once the webhook is back")
        .contains("pod/opted-in created");
  }
}
