package ai.gpustack.kvcache.operator.e2e;

import static org.assertj.core.api.Assertions.assertThat;

import ai.gpustack.kvcache.operator.Shell;
import java.nio.file.Files;
import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.MethodOrderer;
import org.junit.jupiter.api.Order;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestMethodOrder;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/**
 * The multi-tenant guarantees on the real API server: the shipped ValidatingAdmissionPolicy
 * refuses, to the operator's own ServiceAccount token, every Pod the operator would never build,
 * and admits the ones it does (tenant cases in team-a, whose Pod Security is the default: in a
 * restricted namespace Pod Security would answer first); a namespace enforcing the restricted Pod
 * Security Standard admits operator-built Pods; a ResourceQuota on {@code nvidia.com/gpu} counts
 * them; self-signed mode's policy lets that token change only its webhooks' caBundle and write only
 * its serving Secret.
 */
@ExtendWith(RealCluster.class)
@TestMethodOrder(MethodOrderer.OrderAnnotation.class)
@Order(6)
class SecurityE2E {
  static final String NS = "security-e2e";
  static final Duration PATIENCE = Duration.ofSeconds(90);
  static Shell admin;
  static Shell asOperator;
  static String ownerUid;

  @BeforeAll
  static void start(Installation installation) throws Exception {
    admin = installation.admin("security");
    asOperator = new Shell(installation.operatorKubeconfig(), admin.home());
    Examples.apply(admin);
    Files.writeString(
        admin.home().resolve("ns.yaml"),
        """
        apiVersion: v1
        kind: Namespace
        metadata:
          name: %1$s
          labels: {pod-security.kubernetes.io/enforce: restricted}
        ---
        apiVersion: v1
        kind: ResourceQuota
        metadata: {name: gpus, namespace: %1$s}
        spec: {hard: {requests.nvidia.com/gpu: "2"}}
        ---
        apiVersion: worker.gpustack.ai/v1
        kind: KVCachePool
        metadata: {name: %1$s}
        spec: {backends: [mooncake], quota: {total: 1Ti}}
        ---
        apiVersion: worker.gpustack.ai/v1
        kind: KVCachePoolBinding
        metadata: {name: chat, namespace: %1$s}
        spec: {poolRef: {name: %1$s}, domain: {name: security-chat, blockSize: 16, dtype: bfloat16}, quota: {ceiling: 100Gi}}
        """
            .formatted(NS));
    admin.kubectl("apply -f ns.yaml").ok();
    admin
        .sh(
            "kubectl create serviceaccount admin -n team-a --dry-run=client -o yaml | kubectl apply -f -")
        .ok();
  }

  @Test
  @Order(1)
  void a_namespace_enforcing_restricted_admits_the_operators_pods_and_quota_counts_their_gpus()
      throws Exception {
    Files.writeString(
        admin.home().resolve("gpu.yaml"),
        """
        apiVersion: worker.gpustack.ai/v1
        kind: ModelDeployment
        metadata: {name: gpu, namespace: %s}
        spec:
          model: {name: qwen/qwen3-8b}
          engine: {name: vLLM, version: "0.29.0"}
          kvCache: {poolRef: {name: chat}}
          roles: [{name: server, replicas: 3, resources: {limits: {nvidia.com/gpu: "1"}}}]
        """
            .formatted(NS));
    admin.kubectl("apply -f gpu.yaml").ok();
    Shell.Run pods =
        admin.until(
            "kubectl get pods -n " + NS + " -l app.kubernetes.io/instance=gpu -o name",
            r -> r.out().lines().count() >= 2,
            PATIENCE);
    assertThat(pods.out().lines()).as("admitted under restricted, up to the quota").hasSize(2);
    assertThat(
            admin
                .kubectl("get resourcequota gpus -n " + NS + " -o jsonpath={.status.used}")
                .ok()
                .out())
        .contains("\"requests.nvidia.com/gpu\":\"2\"");
    ownerUid = admin.kubectl("get md gpu -n " + NS + " -o jsonpath={.metadata.uid}").ok().out();
    String pod =
        admin
            .kubectl(
                "get pod gpu-server-0 -n "
                    + NS
                    + " -o jsonpath='{.spec.automountServiceAccountToken}/{.spec.securityContext.runAsNonRoot}/{.spec.containers[0].resources.limits}'")
            .ok()
            .out();
    assertThat(pod).isEqualTo("false/true/{\"nvidia.com/gpu\":\"1\"}");
  }

  static String pod(String namespace, String spec, String owner) {
    return """
        apiVersion: v1
        kind: Pod
        metadata:
          name: probe
          namespace: %s
          ownerReferences: [%s]
        spec: %s
        """
        .formatted(namespace, owner, spec);
  }

  static String owner() {
    return "{apiVersion: worker.gpustack.ai/v1, kind: ModelDeployment, name: gpu, uid: \""
        + ownerUid
        + "\", controller: true}";
  }

  static final String PLAIN = "{containers: [{name: main, image: vllm/vllm-openai:v0.29.0}]}";

  @ParameterizedTest(name = "{0}")
  @Order(2)
  @CsvSource(
      delimiter = '|',
      value = {
        "in kube-system|kube-system|" + PLAIN + "|a system namespace",
        "in the operator's own namespace|gpustack-system|" + PLAIN + "|a system namespace",
        "as another ServiceAccount|team-a|{serviceAccountName: admin, containers: [{name: main, image: x}]}|default ServiceAccount",
        "with a hostPath|team-a|{volumes: [{name: h, hostPath: {path: /}}], containers: [{name: main, image: x}]}|no hostPath",
        "on the host network|team-a|{hostNetwork: true, containers: [{name: main, image: x}]}|no host namespace",
        "privileged|team-a|{containers: [{name: main, image: x, securityContext: {privileged: true}}]}|no privileged",
        "adding a capability|team-a|{containers: [{name: main, image: x, securityContext: {capabilities: {add: [SYS_ADMIN]}}}]}|adds no capability"
      })
  void the_policy_refuses_what_the_operator_never_builds_even_to_its_own_token(
      String what, String namespace, String spec, String because) throws Exception {
    Files.writeString(admin.home().resolve("probe.yaml"), pod(namespace, spec, owner()));
    Shell.Run refused = asOperator.kubectl("create -f probe.yaml --dry-run=server");
    assertThat(refused.exit()).as(what + ": " + refused.out()).isEqualTo(1);
    assertThat(refused.err())
        .contains("ValidatingAdmissionPolicy 'kvcache-operator-pods'")
        .contains(because);
  }

  @Test
  @Order(3)
  void a_pod_no_model_deployment_controls_is_refused_and_one_the_operator_would_build_admitted()
      throws Exception {
    Files.writeString(
        admin.home().resolve("orphan.yaml"),
        pod("team-a", PLAIN, "").replace("ownerReferences: []", ""));
    assertThat(asOperator.kubectl("create -f orphan.yaml --dry-run=server").err())
        .contains("is controlled by a ModelDeployment");
    Files.writeString(
        admin.home().resolve("own.yaml"),
        pod(
            "team-a",
            "{automountServiceAccountToken: false, securityContext: {runAsNonRoot: true,"
                + " seccompProfile: {type: RuntimeDefault}}, containers: [{name: main, image: x,"
                + " securityContext: {allowPrivilegeEscalation: false, capabilities: {drop:"
                + " [ALL]}}}]}",
            owner()));
    asOperator.kubectl("create -f own.yaml --dry-run=server").ok();
    Files.writeString(admin.home().resolve("admin.yaml"), pod("kube-system", PLAIN, owner()));
    assertThat(admin.kubectl("create -f admin.yaml --dry-run=server").exit())
        .as("the policy binds the operator's identity only: the administrator is not held")
        .isZero();
  }

  @Test
  @Order(4)
  void the_operator_changes_only_its_webhooks_ca_bundle_and_writes_only_its_serving_secret()
      throws Exception {
    String bundle =
        admin
            .kubectl(
                "get mutatingwebhookconfiguration kvcache.gpustack.ai"
                    + " -o jsonpath={.webhooks[0].clientConfig.caBundle}")
            .ok()
            .out()
            .strip();
    asOperator
        .kubectl(
            "patch mutatingwebhookconfiguration kvcache.gpustack.ai --dry-run=server --type=json"
                + " -p '[{\"op\":\"add\",\"path\":\"/webhooks/0/clientConfig/caBundle\","
                + "\"value\":\""
                + bundle
                + "\"}]'")
        .ok();
    for (String widen :
        List.of(
            "[{\"op\":\"add\",\"path\":\"/webhooks/0/namespaceSelector\",\"value\":{\"matchLabels\":{\"widened\":\"yes\"}}}]",
            "[{\"op\":\"add\",\"path\":\"/webhooks/0/failurePolicy\",\"value\":\"Ignore\"}]",
            "[{\"op\":\"add\",\"path\":\"/webhooks/0/rules/0/resources\",\"value\":[\"*\"]}]")) {
      for (String kind :
          List.of("mutatingwebhookconfiguration", "validatingwebhookconfiguration")) {
        Shell.Run refused =
            asOperator.kubectl(
                "patch "
                    + kind
                    + " kvcache.gpustack.ai --dry-run=server --type=json -p '"
                    + widen
                    + "'");
        assertThat(refused.exit()).as(kind + " " + widen + ": " + refused.out()).isEqualTo(1);
        assertThat(refused.err())
            .contains("ValidatingAdmissionPolicy 'kvcache-operator-certificates'")
            .contains("changes nothing in a webhook configuration but clientConfig.caBundle");
      }
    }
    Files.writeString(
        admin.home().resolve("minted.yaml"),
        """
        apiVersion: v1
        kind: Secret
        metadata:
          name: minted
          namespace: gpustack-system
          annotations: {kubernetes.io/service-account.name: kvcache-operator}
        type: kubernetes.io/service-account-token
        """);
    Shell.Run token = asOperator.kubectl("create -f minted.yaml --dry-run=server");
    assertThat(token.exit()).as(token.out()).isEqualTo(1);
    assertThat(token.err())
        .contains("writes one Secret, kvcache-webhook-tls of type kubernetes.io/tls");
    assertThat(admin.kubectl("create -f minted.yaml --dry-run=server").exit())
        .as("the administrator is not held")
        .isZero();
  }
}
