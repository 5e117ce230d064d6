package ai.gpustack.kvcache.operator.deploy;

import static ai.gpustack.kvcache.operator.deploy.DeployManifests.LABELS;
import static ai.gpustack.kvcache.operator.deploy.DeployManifests.NAME;
import static ai.gpustack.kvcache.operator.deploy.DeployManifests.SELECTOR;

import ai.gpustack.kvcache.api.Settings;
import ai.gpustack.kvcache.operator.Release;
import ai.gpustack.kvcache.operator.certs.CertificateKeeper;
import io.fabric8.kubernetes.api.model.Container;
import io.fabric8.kubernetes.api.model.ContainerBuilder;
import io.fabric8.kubernetes.api.model.HasMetadata;
import io.fabric8.kubernetes.api.model.IntOrString;
import io.fabric8.kubernetes.api.model.NamespaceBuilder;
import io.fabric8.kubernetes.api.model.PodSpec;
import io.fabric8.kubernetes.api.model.PodSpecBuilder;
import io.fabric8.kubernetes.api.model.Probe;
import io.fabric8.kubernetes.api.model.ProbeBuilder;
import io.fabric8.kubernetes.api.model.Quantity;
import io.fabric8.kubernetes.api.model.ServiceAccountBuilder;
import io.fabric8.kubernetes.api.model.apps.DeploymentBuilder;
import io.fabric8.kubernetes.api.model.networking.v1.NetworkPolicyBuilder;
import io.fabric8.kubernetes.api.model.policy.v1.PodDisruptionBudgetBuilder;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;

/**
 * The operator itself: its namespace and ServiceAccount, the Deployment running it, what keeps it
 * available and who may reach it, and the patches an overlay makes to its arguments.
 */
final class OperatorDeployment {
  private static final String CONTAINER = "operator";
  static final String TLS_DIR = "/etc/kvcache/tls";

  /** The namespace label that lets a namespace's Pods (Prometheus) read the management port. */
  static final String SCRAPE_LABEL = "kvcache.gpustack.ai/scrape";

  private OperatorDeployment() {}

  static HasMetadata namespace() {
    return new NamespaceBuilder()
        .withNewMetadata()
        .withName(Settings.NAMESPACE)
        .endMetadata()
        .build();
  }

  static HasMetadata serviceAccount() {
    return new ServiceAccountBuilder()
        .withNewMetadata()
        .withName(NAME)
        .withLabels(LABELS)
        .endMetadata()
        .build();
  }

  /** Two replicas, one leading (the Lease); both serve the webhook. */
  static HasMetadata deployment() {
    return new DeploymentBuilder()
        .withNewMetadata()
        .withName(NAME)
        .withLabels(LABELS)
        .endMetadata()
        .withNewSpec()
        .withReplicas(2)
        .withNewSelector()
        .withMatchLabels(SELECTOR)
        .endSelector()
        .withNewTemplate()
        .withNewMetadata()
        .withLabels(LABELS)
        .endMetadata()
        .withSpec(podSpec())
        .endTemplate()
        .endSpec()
        .build();
  }

  /** A voluntary disruption (a drain) never takes both replicas, so the webhook keeps answering. */
  static HasMetadata budget() {
    return new PodDisruptionBudgetBuilder()
        .withNewMetadata()
        .withName(NAME)
        .withLabels(LABELS)
        .endMetadata()
        .withNewSpec()
        .withMinAvailable(new IntOrString(1))
        .withNewSelector()
        .withMatchLabels(SELECTOR)
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
  static HasMetadata networkPolicy() {
    return new NetworkPolicyBuilder()
        .withNewMetadata()
        .withName(NAME)
        .withLabels(LABELS)
        .endMetadata()
        .withNewSpec()
        .withNewPodSelector()
        .withMatchLabels(SELECTOR)
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

  /** A strategic-merge patch of the operator container's args (and the certificate volume). */
  static HasMetadata argsPatch(List<String> certificateArgs, boolean mountSecret) {
    ContainerBuilder container =
        new ContainerBuilder().withName(CONTAINER).withArgs(runArgs(certificateArgs));
    PodSpecBuilder pod = new PodSpecBuilder();
    if (mountSecret) {
      container
          .addNewVolumeMount()
          .withName("tls")
          .withMountPath(TLS_DIR)
          .withReadOnly(true)
          .endVolumeMount();
      pod.addNewVolume()
          .withName("tls")
          .withNewSecret()
          .withSecretName(CertificateKeeper.SECRET)
          .endSecret()
          .endVolume();
    }
    return new DeploymentBuilder()
        .withNewMetadata()
        .withName(NAME)
        .endMetadata()
        .withNewSpec()
        .withNewTemplate()
        .withSpec(pod.withContainers(container.build()).build())
        .endTemplate()
        .endSpec()
        .build();
  }

  private static List<String> runArgs(List<String> certificateArgs) {
    List<String> args = new ArrayList<>(List.of("run", "--webhook-listen=0.0.0.0:9443"));
    args.add("--health-listen=0.0.0.0:8080");
    args.addAll(certificateArgs);
    return args;
  }

  private static PodSpec podSpec() {
    return new PodSpecBuilder()
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
        .withMatchLabels(SELECTOR)
        .endLabelSelector()
        .endTopologySpreadConstraint()
        .withContainers(container())
        .addNewVolume()
        .withName("tmp")
        .withNewEmptyDir()
        .endEmptyDir()
        .endVolume()
        .build();
  }

  private static Container container() {
    return new ContainerBuilder()
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
        .withReadinessProbe(httpProbe("/readyz", null, 5))
        .withLivenessProbe(httpProbe("/healthz", 20, 10))
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
        .build();
  }

  /** A GET of {@code path} on the management port; no initial delay when it is null. */
  private static Probe httpProbe(String path, Integer initialDelaySeconds, int periodSeconds) {
    return new ProbeBuilder()
        .withNewHttpGet()
        .withPath(path)
        .withPort(new IntOrString("http"))
        .endHttpGet()
        .withInitialDelaySeconds(initialDelaySeconds)
        .withPeriodSeconds(periodSeconds)
        .build();
  }
}
