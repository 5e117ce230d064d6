package ai.gpustack.kvcache.operator.deploy;

import ai.gpustack.kvcache.operator.certs.CertificateKeeper;
import io.fabric8.kubernetes.api.model.HasMetadata;
import io.fabric8.kubernetes.api.model.admissionregistration.v1.ValidatingAdmissionPolicyBuilder;
import java.util.List;
import java.util.stream.Collectors;

/**
 * A guard on what self-signed mode lets the operator write, enforced by the API server: RBAC can
 * name the webhook configurations the operator patches but not the fields, and cannot name a Secret
 * before it exists. With this policy a stolen token can neither widen a webhook (its rules,
 * selectors, failure policy or endpoint) nor mint a ServiceAccount token Secret.
 */
final class CertificatePolicy {
  static final String NAME = DeployManifests.NAME + "-certificates";

  /**
   * Every field of a webhook but {@code clientConfig.caBundle}. CEL cannot drop one field from an
   * object and compare the rest, so the fields are listed; a field a later API adds is not held.
   */
  private static final List<String> WEBHOOK_FIELDS =
      List.of(
          "rules",
          "namespaceSelector",
          "objectSelector",
          "matchConditions",
          "failurePolicy",
          "matchPolicy",
          "sideEffects",
          "timeoutSeconds",
          "admissionReviewVersions",
          "reinvocationPolicy",
          "clientConfig.?url",
          "clientConfig.?service");

  private CertificatePolicy() {}

  static List<HasMetadata> objects() {
    String unchanged =
        WEBHOOK_FIELDS.stream()
            .map(
                f ->
                    f.startsWith("clientConfig.")
                        ? "w." + f + " == o." + f
                        : "w.?" + f + " == o.?" + f)
            .collect(Collectors.joining(" && "));
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
            .withApiGroups("admissionregistration.k8s.io")
            .withApiVersions("v1")
            .withOperations("UPDATE")
            .withResources("mutatingwebhookconfigurations", "validatingwebhookconfigurations")
            .endResourceRule()
            .addNewResourceRule()
            .withApiGroups("")
            .withApiVersions("v1")
            .withOperations("CREATE", "UPDATE")
            .withResources("secrets")
            .endResourceRule()
            .endMatchConstraints()
            .addNewMatchCondition()
            .withName("written-by-the-operator")
            .withExpression(OperatorPodPolicy.BY_THE_OPERATOR)
            .endMatchCondition()
            .withValidations(
                OperatorPodPolicy.rule(
                    "request.resource.resource == 'secrets' || ("
                        + "size(object.webhooks) == size(oldObject.webhooks)"
                        + " && object.webhooks.all(w, oldObject.webhooks.exists(o,"
                        + " o.name == w.name && "
                        + unchanged
                        + ")))",
                    "the kvcache operator changes nothing in a webhook configuration but"
                        + " clientConfig.caBundle"),
                OperatorPodPolicy.rule(
                    "request.resource.resource != 'secrets' || (object.metadata.name == '"
                        + CertificateKeeper.SECRET
                        + "' && object.type == 'kubernetes.io/tls')",
                    "the kvcache operator writes one Secret, "
                        + CertificateKeeper.SECRET
                        + " of type kubernetes.io/tls"))
            .endSpec()
            .build(),
        OperatorPodPolicy.denying(NAME));
  }
}
