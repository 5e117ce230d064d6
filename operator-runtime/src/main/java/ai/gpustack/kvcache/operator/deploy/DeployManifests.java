package ai.gpustack.kvcache.operator.deploy;

import ai.gpustack.kvcache.api.Settings;
import ai.gpustack.kvcache.operator.Release;
import ai.gpustack.kvcache.operator.certs.CertificateKeeper;
import ai.gpustack.kvcache.resources.KvCacheSerialization;
import ai.gpustack.kvcache.webhook.WebhookConfigurations;
import io.fabric8.kubernetes.api.model.ContainerBuilder;
import io.fabric8.kubernetes.api.model.HasMetadata;
import io.fabric8.kubernetes.api.model.IntOrString;
import io.fabric8.kubernetes.api.model.NamespaceBuilder;
import io.fabric8.kubernetes.api.model.Quantity;
import io.fabric8.kubernetes.api.model.ServiceAccountBuilder;
import io.fabric8.kubernetes.api.model.ServiceBuilder;
import io.fabric8.kubernetes.api.model.apps.DeploymentBuilder;
import io.fabric8.kubernetes.api.model.networking.v1.NetworkPolicyBuilder;
import io.fabric8.kubernetes.api.model.policy.v1.PodDisruptionBudgetBuilder;
import io.fabric8.kubernetes.api.model.rbac.ClusterRoleBindingBuilder;
import io.fabric8.kubernetes.api.model.rbac.ClusterRoleBuilder;
import io.fabric8.kubernetes.api.model.rbac.PolicyRule;
import io.fabric8.kubernetes.api.model.rbac.RoleBindingBuilder;
import io.fabric8.kubernetes.api.model.rbac.RoleBuilder;
import io.fabric8.kubernetes.api.model.rbac.Subject;
import io.fabric8.kubernetes.api.model.rbac.SubjectBuilder;
import io.fabric8.kubernetes.client.utils.KubernetesSerialization;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.stream.Collectors;

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
  static final String CONTAINER = "operator";
  static final String TLS_DIR = "/etc/kvcache/tls";
  static final Map<String, String> LABELS =
      Map.of("app.kubernetes.io/name", NAME, "app.kubernetes.io/part-of", "gpustack-kvcache");

  private static final KubernetesSerialization YAML = KvCacheSerialization.create();

  private DeployManifests() {}

  /** Every file, by its path under {@code deploy/}, in a stable order. */
  public static Map<String, String> files(List<String> crdFiles) {
    Map<String, String> files = new LinkedHashMap<>();
    files.put("crds/kustomization.yaml", kustomization(null, crdFiles, List.of()));

    files.put("kustomize/base/namespace.yaml", yaml(namespace()));
    files.put(
        "kustomize/base/rbac.yaml",
        yaml(
            rbac(Permissions.cluster(), Permissions.system(), ""),
            clusterRole(WORKLOADS, Permissions.workloads()),
            clusterRoleBinding(WORKLOADS),
            clusterRole(OBSERVE, Permissions.observe()),
            clusterRoleBinding(OBSERVE)));
    files.put("kustomize/base/operator.yaml", yaml(serviceAccount(), deployment(), budget()));
    files.put("kustomize/base/webhook.yaml", yaml(service(), mutating(), validating()));
    files.put("kustomize/base/policy.yaml", yaml(OperatorPodPolicy.objects(), networkPolicy()));
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

    files.put(
        "kustomize/self-signed/rbac.yaml",
        yaml(
            rbac(
                Permissions.selfSignedCluster(), Permissions.selfSignedSystem(), "-certificates")));
    files.put("kustomize/self-signed/policy.yaml", yaml(CertificatePolicy.objects()));
    files.put(
        "kustomize/self-signed/operator-patch.yaml",
        yaml(argsPatch(List.of("--self-signed-webhook-cert"), false)));
    files.put(
        "kustomize/self-signed/kustomization.yaml",
        kustomization(
            Settings.NAMESPACE,
            List.of("../base", "rbac.yaml", "policy.yaml"),
            List.of("operator-patch.yaml")));

    files.put(
        "kustomize/namespaced/rbac.yaml",
        yaml(roleBinding(WORKLOADS, SCOPED_EXAMPLE), roleBinding(OBSERVE, SCOPED_EXAMPLE)));
    // One file each: kustomize cannot take two deletions in one patch file.
    files.put("kustomize/namespaced/unbind-workloads.yaml", unbindClusterWide(WORKLOADS));
    files.put("kustomize/namespaced/unbind-observe.yaml", unbindClusterWide(OBSERVE));
    files.put(
        "kustomize/namespaced/operator-patch.yaml",
        yaml(
            argsPatch(
                List.of("--self-signed-webhook-cert", "--namespaces=" + SCOPED_EXAMPLE), false)));
    files.put("kustomize/namespaced/webhook-patch.yaml", scopedInjection());
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

    files.put("kustomize/cert-manager/certificate.yaml", certificate());
    files.put(
        "kustomize/cert-manager/operator-patch.yaml",
        yaml(
            argsPatch(
                List.of("--tls-cert=" + TLS_DIR + "/tls.crt", "--tls-key=" + TLS_DIR + "/tls.key"),
                true)));
    files.put("kustomize/cert-manager/webhook-patch.yaml", injectCaPatch());
    files.put(
        "kustomize/cert-manager/kustomization.yaml",
        kustomization(
            Settings.NAMESPACE,
            List.of("../base", "certificate.yaml"),
            List.of("operator-patch.yaml", "webhook-patch.yaml")));
    return files;
  }

  static List<String> runArgs(List<String> certificateArgs) {
    List<String> args = new ArrayList<>(List.of("run", "--webhook-listen=0.0.0.0:9443"));
    args.add("--health-listen=0.0.0.0:8080");
    args.addAll(certificateArgs);
    return args;
  }

  private static HasMetadata namespace() {
    return new NamespaceBuilder()
        .withNewMetadata()
        .withName(Settings.NAMESPACE)
        .endMetadata()
        .build();
  }

  private static HasMetadata serviceAccount() {
    return new ServiceAccountBuilder()
        .withNewMetadata()
        .withName(NAME)
        .withLabels(LABELS)
        .endMetadata()
        .build();
  }

  /**
   * The ClusterRole of the Pods and Events the operator writes, bound per namespace when scoped.
   */
  static final String WORKLOADS = NAME + "-workloads";

  /** The optional ClusterRole of the Pod proxy the operator observes engines through. */
  static final String OBSERVE = NAME + "-observe";

  private static List<HasMetadata> rbac(
      List<PolicyRule> cluster, List<PolicyRule> system, String suffix) {
    String name = NAME + suffix;
    return List.of(
        clusterRole(name, cluster),
        clusterRoleBinding(name),
        new RoleBuilder()
            .withNewMetadata()
            .withName(name)
            .withLabels(LABELS)
            .endMetadata()
            .withRules(system)
            .build(),
        new RoleBindingBuilder()
            .withNewMetadata()
            .withName(name)
            .withLabels(LABELS)
            .endMetadata()
            .withNewRoleRef("rbac.authorization.k8s.io", "Role", name)
            .withSubjects(operatorAccount())
            .build());
  }

  private static HasMetadata clusterRole(String name, List<PolicyRule> rules) {
    return new ClusterRoleBuilder()
        .withNewMetadata()
        .withName(name)
        .withLabels(LABELS)
        .endMetadata()
        .withRules(rules)
        .build();
  }

  private static HasMetadata clusterRoleBinding(String name) {
    return new ClusterRoleBindingBuilder()
        .withNewMetadata()
        .withName(name)
        .withLabels(LABELS)
        .endMetadata()
        .withNewRoleRef("rbac.authorization.k8s.io", "ClusterRole", name)
        .withSubjects(operatorAccount())
        .build();
  }

  /** {@code clusterRole} granted in {@code namespace} only. */
  static HasMetadata roleBinding(String clusterRole, String namespace) {
    return new RoleBindingBuilder()
        .withNewMetadata()
        .withName(clusterRole)
        .withNamespace(namespace)
        .withLabels(LABELS)
        .endMetadata()
        .withNewRoleRef("rbac.authorization.k8s.io", "ClusterRole", clusterRole)
        .withSubjects(operatorAccount())
        .build();
  }

  private static Subject operatorAccount() {
    return new SubjectBuilder()
        .withKind("ServiceAccount")
        .withName(NAME)
        .withNamespace(Settings.NAMESPACE)
        .build();
  }

  /** Two replicas, one leading (the Lease); both serve the webhook. */
  private static HasMetadata deployment() {
    return new DeploymentBuilder()
        .withNewMetadata()
        .withName(NAME)
        .withLabels(LABELS)
        .endMetadata()
        .withNewSpec()
        .withReplicas(2)
        .withNewSelector()
        .withMatchLabels(Map.of("app.kubernetes.io/name", NAME))
        .endSelector()
        .withNewTemplate()
        .withNewMetadata()
        .withLabels(LABELS)
        .endMetadata()
        .withNewSpec()
        .withServiceAccountName(NAME)
        .withNewSecurityContext()
        .withRunAsNonRoot(true)
        .withRunAsUser(65532L)
        .withNewSeccompProfile()
        .withType("RuntimeDefault")
        .endSeccompProfile()
        .endSecurityContext()
        .addNewTopologySpreadConstraint()
        .withMaxSkew(1)
        .withTopologyKey("kubernetes.io/hostname")
        .withWhenUnsatisfiable("ScheduleAnyway")
        .withNewLabelSelector()
        .withMatchLabels(Map.of("app.kubernetes.io/name", NAME))
        .endLabelSelector()
        .endTopologySpreadConstraint()
        .withContainers(
            new ContainerBuilder()
                .withName(CONTAINER)
                .withImage(Release.IMAGE)
                .withArgs(runArgs(List.of()))
                .addNewEnv()
                .withName("POD_NAME")
                .withNewValueFrom()
                .withNewFieldRef()
                .withFieldPath("metadata.name")
                .endFieldRef()
                .endValueFrom()
                .endEnv()
                .addNewPort()
                .withName("webhook")
                .withContainerPort(9443)
                .endPort()
                .addNewPort()
                .withName("http")
                .withContainerPort(8080)
                .endPort()
                .withNewReadinessProbe()
                .withNewHttpGet()
                .withPath("/readyz")
                .withPort(new IntOrString("http"))
                .endHttpGet()
                .withPeriodSeconds(5)
                .endReadinessProbe()
                .withNewLivenessProbe()
                .withNewHttpGet()
                .withPath("/healthz")
                .withPort(new IntOrString("http"))
                .endHttpGet()
                .withInitialDelaySeconds(20)
                .withPeriodSeconds(10)
                .endLivenessProbe()
                .withNewResources()
                .withRequests(Map.of("cpu", new Quantity("100m"), "memory", new Quantity("256Mi")))
                .withLimits(Map.of("memory", new Quantity("512Mi")))
                .endResources()
                .withNewSecurityContext()
                .withAllowPrivilegeEscalation(false)
                .withReadOnlyRootFilesystem(true)
                .withNewCapabilities()
                .withDrop("ALL")
                .endCapabilities()
                .endSecurityContext()
                .addNewVolumeMount()
                .withName("tmp")
                .withMountPath("/tmp")
                .endVolumeMount()
                .build())
        .addNewVolume()
        .withName("tmp")
        .withNewEmptyDir()
        .endEmptyDir()
        .endVolume()
        .endSpec()
        .endTemplate()
        .endSpec()
        .build();
  }

  /** A voluntary disruption (a drain) never takes both replicas, so the webhook keeps answering. */
  private static HasMetadata budget() {
    return new PodDisruptionBudgetBuilder()
        .withNewMetadata()
        .withName(NAME)
        .withLabels(LABELS)
        .endMetadata()
        .withNewSpec()
        .withMinAvailable(new IntOrString(1))
        .withNewSelector()
        .withMatchLabels(Map.of("app.kubernetes.io/name", NAME))
        .endSelector()
        .endSpec()
        .build();
  }

  /**
   * Who may reach the operator's Pods: the webhook port from anywhere, since the API server is no
   * Pod a selector could name (narrow it with an ipBlock of the control plane's addresses), and the
   * management port only from namespaces labelled {@value #SCRAPE_LABEL}; the kubelet's probes come
   * from the node.
   */
  private static HasMetadata networkPolicy() {
    return new NetworkPolicyBuilder()
        .withNewMetadata()
        .withName(NAME)
        .withLabels(LABELS)
        .endMetadata()
        .withNewSpec()
        .withNewPodSelector()
        .withMatchLabels(Map.of("app.kubernetes.io/name", NAME))
        .endPodSelector()
        .withPolicyTypes("Ingress")
        .addNewIngress()
        .addNewPort()
        .withProtocol("TCP")
        .withPort(new IntOrString(9443))
        .endPort()
        .endIngress()
        .addNewIngress()
        .addNewFrom()
        .withNewNamespaceSelector()
        .withMatchLabels(Map.of(SCRAPE_LABEL, "true"))
        .endNamespaceSelector()
        .endFrom()
        .addNewPort()
        .withProtocol("TCP")
        .withPort(new IntOrString(8080))
        .endPort()
        .endIngress()
        .endSpec()
        .build();
  }

  /** The namespace label that lets a namespace's Pods (Prometheus) read the management port. */
  static final String SCRAPE_LABEL = "kvcache.gpustack.ai/scrape";

  private static HasMetadata service() {
    return new ServiceBuilder()
        .withNewMetadata()
        .withName(WebhookConfigurations.SERVICE)
        .withLabels(LABELS)
        .endMetadata()
        .withNewSpec()
        .withSelector(Map.of("app.kubernetes.io/name", NAME))
        .addNewPort()
        .withName("webhook")
        .withPort(443)
        .withTargetPort(new IntOrString("webhook"))
        .endPort()
        .endSpec()
        .build();
  }

  private static HasMetadata mutating() {
    return WebhookConfigurations.mutating(WebhookConfigurations.Target.service(null), Map.of());
  }

  private static HasMetadata validating() {
    return WebhookConfigurations.validating(WebhookConfigurations.Target.service(null), Map.of());
  }

  /** A strategic-merge patch of the operator container's args (and the certificate volume). */
  private static HasMetadata argsPatch(List<String> certificateArgs, boolean mountSecret) {
    ContainerBuilder container =
        new ContainerBuilder().withName(CONTAINER).withArgs(runArgs(certificateArgs));
    if (mountSecret) {
      container
          .addNewVolumeMount()
          .withName("tls")
          .withMountPath(TLS_DIR)
          .withReadOnly(true)
          .endVolumeMount();
    }
    DeploymentBuilder patch =
        new DeploymentBuilder()
            .withNewMetadata()
            .withName(NAME)
            .endMetadata()
            .withNewSpec()
            .withNewTemplate()
            .withNewSpec()
            .withContainers(container.build())
            .endSpec()
            .endTemplate()
            .endSpec();
    if (mountSecret) {
      patch
          .editSpec()
          .editTemplate()
          .editSpec()
          .addNewVolume()
          .withName("tls")
          .withNewSecret()
          .withSecretName(CertificateKeeper.SECRET)
          .endSecret()
          .endVolume()
          .endSpec()
          .endTemplate()
          .endSpec();
    }
    return patch.build();
  }

  /** The namespace the {@code namespaced} overlay scopes the operator to, as an example. */
  static final String SCOPED_EXAMPLE = "team-a";

  /** The base's cluster-wide grant of {@code clusterRole}, taken out. */
  private static String unbindClusterWide(String clusterRole) {
    return "apiVersion: rbac.authorization.k8s.io/v1\n"
        + "kind: ClusterRoleBinding\n"
        + "metadata:\n"
        + "  name: "
        + clusterRole
        + "\n"
        + "$patch: delete\n";
  }

  /** Injection (and its freeze) asked only for Pods of the operator's namespaces. */
  private static String scopedInjection() {
    String selector =
        "    namespaceSelector:\n"
            + "      matchExpressions:\n"
            + "        - {key: kubernetes.io/metadata.name, operator: In, values: ["
            + SCOPED_EXAMPLE
            + "]}\n";
    return "apiVersion: admissionregistration.k8s.io/v1\n"
        + "kind: MutatingWebhookConfiguration\n"
        + "metadata:\n"
        + "  name: "
        + WebhookConfigurations.NAME
        + "\n"
        + "webhooks:\n"
        + "  - name: pod-injection.kvcache.gpustack.ai\n"
        + selector
        + "---\n"
        + "apiVersion: admissionregistration.k8s.io/v1\n"
        + "kind: ValidatingWebhookConfiguration\n"
        + "metadata:\n"
        + "  name: "
        + WebhookConfigurations.NAME
        + "\n"
        + "webhooks:\n"
        + "  - name: pods-freeze.kvcache.gpustack.ai\n"
        + selector;
  }

  /** cert-manager's self-signed issuer, a CA it keeps, and the serving certificate it signs. */
  private static String certificate() {
    String dnsNames =
        CertificateKeeper.DNS_NAMES.stream()
            .map(n -> "    - " + n)
            .collect(Collectors.joining("\n"));
    return String.join(
        "\n",
        "# cert-manager issues the webhook's certificate into the Secret the operator mounts, and",
        "# injects its CA into both webhook configurations (cert-manager.io/inject-ca-from).",
        "apiVersion: cert-manager.io/v1",
        "kind: Issuer",
        "metadata:",
        "  name: kvcache-selfsigned",
        "spec:",
        "  selfSigned: {}",
        "---",
        "apiVersion: cert-manager.io/v1",
        "kind: Certificate",
        "metadata:",
        "  name: kvcache-webhook-ca",
        "spec:",
        "  isCA: true",
        "  commonName: kvcache-webhook-ca",
        "  secretName: kvcache-webhook-ca",
        "  privateKey: {algorithm: ECDSA, size: 256}",
        "  issuerRef: {name: kvcache-selfsigned, kind: Issuer}",
        "---",
        "apiVersion: cert-manager.io/v1",
        "kind: Issuer",
        "metadata:",
        "  name: kvcache-webhook-ca",
        "spec:",
        "  ca: {secretName: kvcache-webhook-ca}",
        "---",
        "apiVersion: cert-manager.io/v1",
        "kind: Certificate",
        "metadata:",
        "  name: " + WebhookConfigurations.SERVICE,
        "spec:",
        "  secretName: " + CertificateKeeper.SECRET,
        "  duration: 8760h",
        "  renewBefore: 720h",
        "  privateKey: {algorithm: ECDSA, size: 256, rotationPolicy: Always}",
        "  dnsNames:",
        dnsNames,
        "  issuerRef: {name: kvcache-webhook-ca, kind: Issuer}",
        "");
  }

  private static String injectCaPatch() {
    String annotation =
        "  annotations:\n    cert-manager.io/inject-ca-from: "
            + Settings.NAMESPACE
            + "/"
            + WebhookConfigurations.SERVICE
            + "\n";
    return "apiVersion: admissionregistration.k8s.io/v1\n"
        + "kind: MutatingWebhookConfiguration\n"
        + "metadata:\n  name: "
        + WebhookConfigurations.NAME
        + "\n"
        + annotation
        + "---\n"
        + "apiVersion: admissionregistration.k8s.io/v1\n"
        + "kind: ValidatingWebhookConfiguration\n"
        + "metadata:\n  name: "
        + WebhookConfigurations.NAME
        + "\n"
        + annotation;
  }

  private static String kustomization(
      String namespace, List<String> resources, List<String> patches) {
    StringBuilder out =
        new StringBuilder(
            "# Generated by DeployManifests; regenerate with -Dkvcache.golden.write=true\n"
                + "apiVersion: kustomize.config.k8s.io/v1beta1\n"
                + "kind: Kustomization\n");
    if (namespace != null) {
      out.append("namespace: ").append(namespace).append('\n');
    }
    out.append("resources:\n");
    resources.forEach(r -> out.append("  - ").append(r).append('\n'));
    if (!patches.isEmpty()) {
      out.append("patches:\n");
      patches.forEach(p -> out.append("  - path: ").append(p).append('\n'));
    }
    return out.toString();
  }

  private static String yaml(Object... objects) {
    List<HasMetadata> all = new ArrayList<>();
    for (Object o : objects) {
      if (o instanceof List<?> list) {
        list.forEach(x -> all.add((HasMetadata) x));
      } else {
        all.add((HasMetadata) o);
      }
    }
    return all.stream()
        .map(YAML::asYaml)
        .map(y -> y.startsWith("---\n") ? y.substring(4) : y)
        .collect(Collectors.joining("---\n"));
  }
}
