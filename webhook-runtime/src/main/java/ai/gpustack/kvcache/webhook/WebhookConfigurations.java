package ai.gpustack.kvcache.webhook;

import ai.gpustack.kvcache.admission.Route;
import ai.gpustack.kvcache.api.Settings;
import ai.gpustack.kvcache.resources.Keys;
import io.fabric8.kubernetes.api.model.LabelSelector;
import io.fabric8.kubernetes.api.model.LabelSelectorBuilder;
import io.fabric8.kubernetes.api.model.admissionregistration.v1.MutatingWebhook;
import io.fabric8.kubernetes.api.model.admissionregistration.v1.MutatingWebhookBuilder;
import io.fabric8.kubernetes.api.model.admissionregistration.v1.MutatingWebhookConfiguration;
import io.fabric8.kubernetes.api.model.admissionregistration.v1.MutatingWebhookConfigurationBuilder;
import io.fabric8.kubernetes.api.model.admissionregistration.v1.RuleWithOperations;
import io.fabric8.kubernetes.api.model.admissionregistration.v1.RuleWithOperationsBuilder;
import io.fabric8.kubernetes.api.model.admissionregistration.v1.ValidatingWebhook;
import io.fabric8.kubernetes.api.model.admissionregistration.v1.ValidatingWebhookBuilder;
import io.fabric8.kubernetes.api.model.admissionregistration.v1.ValidatingWebhookConfiguration;
import io.fabric8.kubernetes.api.model.admissionregistration.v1.ValidatingWebhookConfigurationBuilder;
import io.fabric8.kubernetes.api.model.admissionregistration.v1.WebhookClientConfig;
import io.fabric8.kubernetes.api.model.admissionregistration.v1.WebhookClientConfigBuilder;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/**
 * The webhook configurations, generated from the {@link Route}s so paths, kinds and operations
 * never drift from the code. Pod webhooks select only opted-in Pods and skip the system namespace
 * (the operator's own Pods must never wait on its webhook); the Pod freeze fails open.
 */
public final class WebhookConfigurations {
  public static final String NAME = "kvcache.gpustack.ai";
  public static final String SERVICE = "kvcache-webhook";
  public static final int TIMEOUT_SECONDS = 10;

  private WebhookConfigurations() {}

  /** Where the API server reaches the webhook: a Service, or a URL (for out-of-cluster tests). */
  public record Target(
      Optional<String> url, String namespace, String service, Optional<String> caBundle) {
    public static Target service(String caBundle) {
      return new Target(
          Optional.empty(), Settings.NAMESPACE, SERVICE, Optional.ofNullable(caBundle));
    }

    WebhookClientConfig clientConfig(String path) {
      WebhookClientConfigBuilder b = new WebhookClientConfigBuilder();
      if (url.isPresent()) {
        b.withUrl(url.get() + path);
      } else {
        b.withNewService()
            .withNamespace(namespace)
            .withName(service)
            .withPort(443)
            .withPath(path)
            .endService();
      }
      caBundle.ifPresent(b::withCaBundle);
      return b.build();
    }
  }

  public static MutatingWebhookConfiguration mutating(
      Target target, Map<String, String> annotations) {
    Route h = Route.POD_INJECTION;
    MutatingWebhook pod =
        new MutatingWebhookBuilder()
            .withName("pod-injection." + NAME)
            .withClientConfig(target.clientConfig(h.path()))
            .withRules(rules(h))
            .withObjectSelector(injectSelector())
            .withNamespaceSelector(outsideSystemNamespace())
            .withFailurePolicy("Fail")
            .withSideEffects("None")
            .withReinvocationPolicy("Never")
            .withMatchPolicy("Equivalent")
            .withTimeoutSeconds(TIMEOUT_SECONDS)
            .withAdmissionReviewVersions("v1")
            .build();
    return new MutatingWebhookConfigurationBuilder()
        .withNewMetadata()
        .withName(NAME)
        .withAnnotations(annotations.isEmpty() ? null : annotations)
        .endMetadata()
        .withWebhooks(pod)
        .build();
  }

  public static ValidatingWebhookConfiguration validating(
      Target target, Map<String, String> annotations) {
    List<ValidatingWebhook> hooks = new ArrayList<>();
    for (Route h : Route.values()) {
      if (h.mutating()) {
        continue;
      }
      boolean pod = h == Route.POD_FREEZE;
      ValidatingWebhookBuilder b =
          new ValidatingWebhookBuilder()
              .withName(h.resource() + (pod ? "-freeze." : ".") + NAME)
              .withClientConfig(target.clientConfig(h.path()))
              .withRules(rules(h))
              .withFailurePolicy(pod ? "Ignore" : "Fail")
              .withSideEffects("None")
              .withMatchPolicy("Equivalent")
              .withTimeoutSeconds(TIMEOUT_SECONDS)
              .withAdmissionReviewVersions("v1");
      if (pod) {
        b.withObjectSelector(injectSelector()).withNamespaceSelector(outsideSystemNamespace());
      }
      hooks.add(b.build());
    }
    return new ValidatingWebhookConfigurationBuilder()
        .withNewMetadata()
        .withName(NAME)
        .withAnnotations(annotations.isEmpty() ? null : annotations)
        .endMetadata()
        .withWebhooks(hooks)
        .build();
  }

  private static RuleWithOperations rules(Route h) {
    return new RuleWithOperationsBuilder()
        .withApiGroups(h.group())
        .withApiVersions("v1")
        .withResources(h.resource())
        .withOperations(h.operations())
        .withScope(h.namespaced() ? "Namespaced" : "Cluster")
        .build();
  }

  private static LabelSelector injectSelector() {
    return new LabelSelectorBuilder()
        .addNewMatchExpression()
        .withKey(Keys.INJECT)
        .withOperator("In")
        .withValues("true")
        .endMatchExpression()
        .build();
  }

  /**
   * Never the operator's own namespace (its Pods would wait on themselves) nor kube-system (an
   * operator outage must not hold a system Pod, and nothing there is injected).
   */
  private static LabelSelector outsideSystemNamespace() {
    return new LabelSelectorBuilder()
        .addNewMatchExpression()
        .withKey("kubernetes.io/metadata.name")
        .withOperator("NotIn")
        .withValues(Settings.NAMESPACE, "kube-system")
        .endMatchExpression()
        .build();
  }
}
