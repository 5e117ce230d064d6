package ai.gpustack.kvcache.operator.deploy;

import static ai.gpustack.kvcache.operator.deploy.ManifestText.kustomization;
import static ai.gpustack.kvcache.operator.deploy.ManifestText.yaml;

import ai.gpustack.kvcache.api.Settings;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * The installation, as kustomize directories under {@code deploy/}: {@code crds}, a {@code
 * kustomize/base} with everything both certificate modes share, and one overlay per mode — {@code
 * kustomize/self-signed} (the operator issues its own CA and keeps the caBundle current) and {@code
 * kustomize/cert-manager} (cert-manager issues the certificate and injects the CA). Every object
 * comes from code the operator itself uses: the permissions, the webhook configurations, the image
 * this build makes. {@code DeployManifestsTest} keeps the committed files equal to this.
 */
public final class DeployManifests {
  public static final String NAME = "kvcache-operator";
  static final Map<String, String> LABELS =
      Map.of("app.kubernetes.io/name", NAME, "app.kubernetes.io/part-of", "gpustack-kvcache");

  /** The label that selects the operator's Pods. */
  static final Map<String, String> SELECTOR = Map.of("app.kubernetes.io/name", NAME);

  /** The namespace the {@code namespaced} overlay scopes the operator to, as an example. */
  static final String SCOPED_EXAMPLE = "team-a";

  private DeployManifests() {}

  /**
   * Every file, by its path under {@code deploy/}, in a stable order: the kustomize tree, and the
   * Helm chart with {@code crds} (the CRD files by name) in its {@code crds/}.
   */
  public static Map<String, String> files(Map<String, String> crds) {
    Map<String, String> files = new LinkedHashMap<>();
    files.put(
        "crds/kustomization.yaml", kustomization(null, List.copyOf(crds.keySet()), List.of()));
    base(files);
    selfSigned(files);
    namespaced(files);
    certManager(files);
    files.putAll(HelmChart.files(crds));
    return files;
  }

  private static void base(Map<String, String> files) {
    files.put("kustomize/base/namespace.yaml", yaml(OperatorDeployment.namespace()));
    files.put("kustomize/base/rbac.yaml", yaml(OperatorRbac.base()));
    files.put(
        "kustomize/base/operator.yaml",
        yaml(
            OperatorDeployment.serviceAccount(),
            OperatorDeployment.deployment(),
            OperatorDeployment.budget()));
    files.put(
        "kustomize/base/webhook.yaml",
        yaml(
            WebhookManifests.service(),
            WebhookManifests.mutating(),
            WebhookManifests.validating()));
    files.put(
        "kustomize/base/policy.yaml",
        yaml(OperatorPodPolicy.objects(), OperatorDeployment.networkPolicy()));
    files.put(
        "kustomize/base/kustomization.yaml",
        kustomization(
            Settings.NAMESPACE,
            List.of(
                "../../crds",
                "namespace.yaml",
                "rbac.yaml",
                "operator.yaml",
                "webhook.yaml",
                "policy.yaml"),
            List.of()));
  }

  private static void selfSigned(Map<String, String> files) {
    files.put("kustomize/self-signed/rbac.yaml", yaml(OperatorRbac.selfSigned()));
    files.put("kustomize/self-signed/policy.yaml", yaml(CertificatePolicy.objects()));
    files.put(
        "kustomize/self-signed/operator-patch.yaml",
        yaml(OperatorDeployment.argsPatch(List.of("--self-signed-webhook-cert"), false)));
    files.put(
        "kustomize/self-signed/kustomization.yaml",
        kustomization(
            Settings.NAMESPACE,
            List.of("../base", "rbac.yaml", "policy.yaml"),
            List.of("operator-patch.yaml")));
  }

  private static void namespaced(Map<String, String> files) {
    files.put("kustomize/namespaced/rbac.yaml", yaml(OperatorRbac.scoped(SCOPED_EXAMPLE)));
    // One file each: kustomize cannot take two deletions in one patch file.
    files.put(
        "kustomize/namespaced/unbind-workloads.yaml",
        OperatorRbac.unbindClusterWide(OperatorRbac.WORKLOADS));
    files.put(
        "kustomize/namespaced/unbind-observe.yaml",
        OperatorRbac.unbindClusterWide(OperatorRbac.OBSERVE));
    files.put(
        "kustomize/namespaced/operator-patch.yaml",
        yaml(
            OperatorDeployment.argsPatch(
                List.of("--self-signed-webhook-cert", "--namespaces=" + SCOPED_EXAMPLE), false)));
    files.put(
        "kustomize/namespaced/webhook-patch.yaml",
        WebhookManifests.scopedInjection(SCOPED_EXAMPLE));
    // No namespace of its own: the RoleBindings live in the namespaces they grant.
    files.put(
        "kustomize/namespaced/kustomization.yaml",
        kustomization(
                null,
                List.of("../self-signed", "rbac.yaml"),
                List.of(
                    "unbind-workloads.yaml",
                    "unbind-observe.yaml",
                    "operator-patch.yaml",
                    "webhook-patch.yaml"))
            .replaceFirst(
                "\n",
                "\n# One operator for the namespaces it lists ("
                    + SCOPED_EXAMPLE
                    + " here): its Pods, Events and Pod proxy reads are\n"
                    + "# granted there only. To add a namespace, add it to both RoleBindings in"
                    + " rbac.yaml, to\n# --namespaces in operator-patch.yaml and to"
                    + " webhook-patch.yaml's selectors.\n"));
  }

  private static void certManager(Map<String, String> files) {
    files.put("kustomize/cert-manager/certificate.yaml", CertManagerManifests.certificates());
    files.put(
        "kustomize/cert-manager/operator-patch.yaml",
        yaml(
            OperatorDeployment.argsPatch(
                List.of(
                    "--tls-cert=" + OperatorDeployment.TLS_DIR + "/tls.crt",
                    "--tls-key=" + OperatorDeployment.TLS_DIR + "/tls.key"),
                true)));
    files.put("kustomize/cert-manager/webhook-patch.yaml", CertManagerManifests.injectCaPatch());
    files.put(
        "kustomize/cert-manager/kustomization.yaml",
        kustomization(
            Settings.NAMESPACE,
            List.of("../base", "certificate.yaml"),
            List.of("operator-patch.yaml", "webhook-patch.yaml")));
  }
}
