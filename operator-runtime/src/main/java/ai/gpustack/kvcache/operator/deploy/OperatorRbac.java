package ai.gpustack.kvcache.operator.deploy;

import static ai.gpustack.kvcache.operator.deploy.DeployManifests.LABELS;
import static ai.gpustack.kvcache.operator.deploy.DeployManifests.NAME;

import ai.gpustack.kvcache.api.Settings;
import io.fabric8.kubernetes.api.model.HasMetadata;
import io.fabric8.kubernetes.api.model.rbac.ClusterRoleBindingBuilder;
import io.fabric8.kubernetes.api.model.rbac.ClusterRoleBuilder;
import io.fabric8.kubernetes.api.model.rbac.PolicyRule;
import io.fabric8.kubernetes.api.model.rbac.RoleBindingBuilder;
import io.fabric8.kubernetes.api.model.rbac.RoleBuilder;
import io.fabric8.kubernetes.api.model.rbac.Subject;
import io.fabric8.kubernetes.api.model.rbac.SubjectBuilder;
import java.util.ArrayList;
import java.util.List;

/** The operator's roles, and their bindings to its ServiceAccount, from {@link Permissions}. */
final class OperatorRbac {
  /**
   * The ClusterRole of the Pods and Events the operator writes, bound per namespace when scoped.
   */
  static final String WORKLOADS = NAME + "-workloads";

  /** The optional ClusterRole of the Pod proxy the operator observes engines through. */
  static final String OBSERVE = NAME + "-observe";

  private OperatorRbac() {}

  /** Every grant of the base: the operator's own roles, and workloads and observe cluster-wide. */
  static List<HasMetadata> base() {
    List<HasMetadata> out = new ArrayList<>(roles(Permissions.cluster(), Permissions.system(), ""));
    out.add(clusterRole(WORKLOADS, Permissions.workloads()));
    out.add(clusterRoleBinding(WORKLOADS));
    out.add(clusterRole(OBSERVE, Permissions.observe()));
    out.add(clusterRoleBinding(OBSERVE));
    return out;
  }

  /** What keeping its own certificate adds. */
  static List<HasMetadata> selfSigned() {
    return roles(Permissions.selfSignedCluster(), Permissions.selfSignedSystem(), "-certificates");
  }

  /** Workloads and observe granted in {@code namespace} only. */
  static List<HasMetadata> scoped(String namespace) {
    return List.of(roleBinding(WORKLOADS, namespace), roleBinding(OBSERVE, namespace));
  }

  /** The base's cluster-wide grant of {@code clusterRole}, taken out. */
  static String unbindClusterWide(String clusterRole) {
    return "apiVersion: rbac.authorization.k8s.io/v1\n"
        + "kind: ClusterRoleBinding\n"
        + "metadata:\n"
        + "  name: "
        + clusterRole
        + "\n"
        + "$patch: delete\n";
  }

  /** A ClusterRole and a Role in the operator's namespace, each bound, named alike. */
  private static List<HasMetadata> roles(
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
  private static HasMetadata roleBinding(String clusterRole, String namespace) {
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
}
