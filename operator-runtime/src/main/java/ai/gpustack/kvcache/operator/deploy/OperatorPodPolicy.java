package ai.gpustack.kvcache.operator.deploy;

import ai.gpustack.kvcache.api.Settings;
import io.fabric8.kubernetes.api.model.HasMetadata;
import io.fabric8.kubernetes.api.model.admissionregistration.v1.ValidatingAdmissionPolicyBindingBuilder;
import io.fabric8.kubernetes.api.model.admissionregistration.v1.ValidatingAdmissionPolicyBuilder;
import io.fabric8.kubernetes.api.model.admissionregistration.v1.Validation;
import io.fabric8.kubernetes.api.model.admissionregistration.v1.ValidationBuilder;
import java.util.List;

/**
 * A guard on the operator's own writes, enforced by the API server itself: a Pod created by the
 * operator's ServiceAccount must be one the operator would build. Even a stolen token then cannot
 * make a Pod in a system namespace, run it as another ServiceAccount, or give it the host. The
 * policy cannot ask whether the namespace holds a ModelDeployment; it asks for a ModelDeployment as
 * the Pod's controller instead, and the garbage collector deletes a Pod whose named owner does not
 * exist in its namespace.
 */
final class OperatorPodPolicy {
  static final String NAME = DeployManifests.NAME + "-pods";

  /** A match condition: the request comes from the operator's ServiceAccount. */
  static final String BY_THE_OPERATOR =
      "request.userInfo.username == 'system:serviceaccount:"
          + Settings.NAMESPACE
          + ":"
          + DeployManifests.NAME
          + "'";

  private OperatorPodPolicy() {}

  static List<HasMetadata> objects() {
    return List.of(
        new ValidatingAdmissionPolicyBuilder()
            .withNewMetadata()
            .withName(NAME)
            .withLabels(DeployManifests.LABELS)
            .endMetadata()
            .withNewSpec()
            .withFailurePolicy("Fail")
            .withNewMatchConstraints()
            .addNewResourceRule()
            .withApiGroups("")
            .withApiVersions("v1")
            .withOperations("CREATE")
            .withResources("pods")
            .endResourceRule()
            .endMatchConstraints()
            .addNewMatchCondition()
            .withName("created-by-the-operator")
            .withExpression(BY_THE_OPERATOR)
            .endMatchCondition()
            .addNewVariable()
            .withName("containers")
            .withExpression(
                "object.spec.containers"
                    + " + (has(object.spec.initContainers) ? object.spec.initContainers : [])"
                    + " + (has(object.spec.ephemeralContainers) ?"
                    + " object.spec.ephemeralContainers : [])")
            .endVariable()
            .withValidations(validations())
            .endSpec()
            .build(),
        denying(NAME));
  }

  /** The binding that makes policy {@code name} refuse, cluster-wide. */
  static HasMetadata denying(String name) {
    return new ValidatingAdmissionPolicyBindingBuilder()
        .withNewMetadata()
        .withName(name)
        .withLabels(DeployManifests.LABELS)
        .endMetadata()
        .withNewSpec()
        .withPolicyName(name)
        .withValidationActions("Deny")
        .endSpec()
        .build();
  }

  private static List<Validation> validations() {
    return List.of(
        rule(
            "!(namespaceObject.metadata.name in ['kube-system', 'kube-public', 'kube-node-lease',"
                + " '"
                + Settings.NAMESPACE
                + "'])",
            "the kvcache operator creates no Pod in a system namespace or its own"),
        rule(
            "has(object.metadata.ownerReferences) && object.metadata.ownerReferences.exists(r,"
                + " r.apiVersion == 'worker.gpustack.ai/v1' && r.kind == 'ModelDeployment'"
                + " && has(r.controller) && r.controller)",
            "a Pod the kvcache operator creates is controlled by a ModelDeployment"),
        rule(
            "!has(object.spec.serviceAccountName) || object.spec.serviceAccountName == ''"
                + " || object.spec.serviceAccountName == 'default'",
            "a Pod the kvcache operator creates runs as its namespace's default ServiceAccount"),
        rule(
            "!has(object.spec.volumes) || object.spec.volumes.all(v, !has(v.hostPath))",
            "a Pod the kvcache operator creates mounts no hostPath volume"),
        rule(
            "!(has(object.spec.hostNetwork) && object.spec.hostNetwork)"
                + " && !(has(object.spec.hostPID) && object.spec.hostPID)"
                + " && !(has(object.spec.hostIPC) && object.spec.hostIPC)",
            "a Pod the kvcache operator creates shares no host namespace"),
        rule(
            "variables.containers.all(c, !has(c.securityContext)"
                + " || !has(c.securityContext.privileged) || !c.securityContext.privileged)",
            "a Pod the kvcache operator creates runs no privileged container"),
        rule(
            "variables.containers.all(c, !has(c.securityContext)"
                + " || !has(c.securityContext.capabilities)"
                + " || !has(c.securityContext.capabilities.add)"
                + " || size(c.securityContext.capabilities.add) == 0)",
            "a Pod the kvcache operator creates adds no capability"));
  }

  /** A refusal: {@code expression} must hold, else {@code message}. */
  static Validation rule(String expression, String message) {
    return new ValidationBuilder()
        .withExpression(expression)
        .withMessage(message)
        .withReason("Forbidden")
        .build();
  }
}
