package ai.gpustack.kvcache.operator.deploy;

import static ai.gpustack.kvcache.operator.deploy.DeployManifests.LABELS;
import static ai.gpustack.kvcache.operator.deploy.DeployManifests.SELECTOR;

import ai.gpustack.kvcache.webhook.WebhookConfigurations;
import io.fabric8.kubernetes.api.model.HasMetadata;
import io.fabric8.kubernetes.api.model.IntOrString;
import io.fabric8.kubernetes.api.model.ServiceBuilder;
import java.util.Map;

/** The webhook as installed: the Service in front of the operator, and both configurations. */
final class WebhookManifests {
  private WebhookManifests() {}

  static HasMetadata service() {
    return new ServiceBuilder()
        .withNewMetadata()
        .withName(WebhookConfigurations.SERVICE)
        .withLabels(LABELS)
        .endMetadata()
        .withNewSpec()
        .withSelector(SELECTOR)
        .addNewPort()
        .withName("webhook")
        .withPort(443)
        .withTargetPort(new IntOrString("webhook"))
        .endPort()
        .endSpec()
        .build();
  }

  static HasMetadata mutating() {
    return WebhookConfigurations.mutating(WebhookConfigurations.Target.service(null), Map.of());
  }

  static HasMetadata validating() {
    return WebhookConfigurations.validating(WebhookConfigurations.Target.service(null), Map.of());
  }

  /** A patch asking for injection (and its freeze) only for Pods of {@code namespace}. */
  static String scopedInjection(String namespace) {
    String selector =
        "    namespaceSelector:\n"
            + "      matchExpressions:\n"
            + "        - {key: kubernetes.io/metadata.name, operator: In, values: ["
            + namespace
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
}
