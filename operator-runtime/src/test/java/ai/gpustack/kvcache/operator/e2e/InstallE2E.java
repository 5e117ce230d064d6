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
 * Part 1: the shipped manifests on the real API server. Every CRD is accepted (a structural schema,
 * its CEL rules compiled within the cost budget, which the API server checks when it stores the
 * CRD), and the printer columns, {@code kubectl explain} and a transition rule answer from the real
 * server.
 */
@ExtendWith(RealCluster.class)
@TestMethodOrder(MethodOrderer.OrderAnnotation.class)
@Order(1)
class InstallE2E {
  static final String NS = "install-e2e";
  static final String[] CRDS = {
    "kvcachebackends.worker.gpustack.ai",
    "kvcachepools.worker.gpustack.ai",
    "kvcachepoolbindings.worker.gpustack.ai",
    "modeldeployments.worker.gpustack.ai",
    "settings.gpustack.ai"
  };

  static Installation installed;
  static Shell kubectl;

  @BeforeAll
  static void install(Installation installation) throws Exception {
    installed = installation;
    kubectl = installation.admin("install");
    Files.writeString(
        kubectl.home().resolve("store.yaml"),
        """
        apiVersion: v1
        kind: Namespace
        metadata: {name: %1$s}
        ---
        apiVersion: worker.gpustack.ai/v1
        kind: KVCacheBackend
        metadata: {name: %1$s}
        spec: {connection: {external: {clientEndpoint: "master.install.svc:50051"}}}
        ---
        apiVersion: worker.gpustack.ai/v1
        kind: KVCachePool
        metadata: {name: %1$s}
        spec: {backends: [%1$s], quota: {total: 1Ti}}
        ---
        apiVersion: worker.gpustack.ai/v1
        kind: KVCachePoolBinding
        metadata: {name: chat, namespace: %1$s}
        spec: {poolRef: {name: %1$s}, domain: {name: install-chat, blockSize: 16, dtype: bfloat16}, quota: {ceiling: 100Gi}}
        """
            .formatted(NS));
    kubectl.kubectl("apply -f store.yaml").ok();
  }

  @Test
  @Order(1)
  void the_crds_apply_on_their_own_and_in_the_kustomize_base() {
    for (String crd : CRDS) {
      assertThat(installed.crds().out())
          .containsPattern(
              "customresourcedefinition.apiextensions.k8s.io/"
                  + crd
                  + " (created|unchanged|configured)");
    }
    assertThat(installed.install().out())
        .contains(
            "namespace/gpustack-system",
            "serviceaccount/kvcache-operator",
            "clusterrole.rbac.authorization.k8s.io/kvcache-operator",
            "mutatingwebhookconfiguration.admissionregistration.k8s.io/kvcache.gpustack.ai",
            "validatingwebhookconfiguration.admissionregistration.k8s.io/kvcache.gpustack.ai",
            "deployment.apps/kvcache-operator");
  }

  @Test
  @Order(2)
  void every_crd_is_established_with_a_structural_schema_and_accepted_names() {
    for (String crd : CRDS) {
      String conditions =
          kubectl
              .kubectl(
                  "get crd "
                      + crd
                      + " -o jsonpath='{range .status.conditions[*]}{.type}={.status}{\"\\n\"}{end}'")
              .ok()
              .out();
      assertThat(conditions.lines().toList())
          .as(crd)
          .contains("Established=True", "NamesAccepted=True")
          .noneMatch(c -> c.startsWith("NonStructuralSchema"));
    }
  }

  @Test
  @Order(3)
  void the_printer_columns_come_from_the_real_server() {
    Shell.Run bindings = kubectl.kubectl("get kvcpb -n " + NS).ok();
    assertThat(bindings.out().lines().findFirst().orElseThrow().split("\\s+"))
        .containsExactly("NAME", "POOL", "DOMAIN", "BLOCKSIZE", "DTYPE", "PHASE", "AGE");
    assertThat(bindings.out())
        .containsPattern("chat\\s+" + NS + "\\s+install-chat\\s+16\\s+bfloat16");
    assertThat(kubectl.kubectl("get md -A").ok().out() + kubectl.kubectl("get md -A").err())
        .containsPattern(
            "(NAMESPACE\\s+NAME\\s+ENGINE\\s+MODEL\\s+BINDING\\s+PHASE\\s+AGE|No resources found)");
  }

  @Test
  @Order(4)
  void kubectl_explain_reads_the_field_descriptions_from_the_real_server() {
    Shell.Run explain = kubectl.kubectl("explain modeldeployments.spec.kvCache").ok();
    assertThat(explain.out())
        .contains("KIND:       ModelDeployment", "FIELD: kvCache <Object>", "poolRef\t<Object>");
    assertThat(kubectl.kubectl("explain kvcpb.spec.domain.dtype").ok().out())
        .contains("FIELD: dtype <string>");
  }

  @Test
  @Order(5)
  void a_transition_rule_keeps_the_dtype_immutable_in_the_api_server_itself() {
    Shell.Run edit =
        kubectl.kubectl(
            "patch kvcpb chat -n "
                + NS
                + " --type merge -p '{\"spec\":{\"domain\":{\"dtype\":\"fp8_e4m3\"}}}'");
    assertThat(edit.exit()).isEqualTo(1);
    assertThat(edit.err())
        .contains("The KVCachePoolBinding \"chat\" is invalid")
        .contains("spec.domain.dtype")
        .contains("immutable");
    assertThat(
            kubectl
                .until(
                    "kubectl get kvcpb chat -n " + NS + " -o jsonpath={.status.phase}",
                    r -> r.out().equals("Ready"),
                    Duration.ofSeconds(60))
                .out())
        .as("the operator reconciles it")
        .isEqualTo("Ready");
  }
}
