package ai.gpustack.kvcache.webhook;

import static org.assertj.core.api.Assertions.assertThat;

import ai.gpustack.kvcache.admission.Route;
import ai.gpustack.kvcache.resources.KvCacheSerialization;
import io.fabric8.kubernetes.api.model.admissionregistration.v1.MutatingWebhookConfiguration;
import io.fabric8.kubernetes.api.model.admissionregistration.v1.ValidatingWebhook;
import io.fabric8.kubernetes.api.model.admissionregistration.v1.ValidatingWebhookConfiguration;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Map;
import org.junit.jupiter.api.Test;

/**
 * The webhook configurations are generated from the handlers; this pins them against a golden file.
 * Regenerate with {@code -Dkvcache.golden.write=true}.
 */
class WebhookConfigurationsTest {
  private static final Path GOLDEN =
      Path.of("src/test/resources/golden/webhook-configurations.yaml");

  static String render() {
    var target = WebhookConfigurations.Target.service(null);
    var s = KvCacheSerialization.create();
    return s.asYaml(
            WebhookConfigurations.mutating(
                target,
                Map.of("cert-manager.io/inject-ca-from", "gpustack-system/kvcache-webhook")))
        + s.asYaml(
            WebhookConfigurations.validating(
                target,
                Map.of("cert-manager.io/inject-ca-from", "gpustack-system/kvcache-webhook")));
  }

  @Test
  void the_generated_configurations_match_the_golden_file() throws Exception {
    String rendered = render();
    if (Boolean.getBoolean("kvcache.golden.write")) {
      Files.writeString(GOLDEN, rendered, StandardCharsets.UTF_8);
    }
    assertThat(Files.readString(GOLDEN, StandardCharsets.UTF_8))
        .as("regenerate with -Dkvcache.golden.write=true")
        .isEqualTo(rendered);
  }

  @Test
  void
      pod_webhooks_select_opted_in_pods_outside_the_system_namespaces_and_only_the_freeze_fails_open() {
    var target = WebhookConfigurations.Target.service("Q0E=");
    MutatingWebhookConfiguration mutating = WebhookConfigurations.mutating(target, Map.of());
    assertThat(mutating.getWebhooks())
        .singleElement()
        .satisfies(
            w -> {
              assertThat(w.getFailurePolicy()).isEqualTo("Fail");
              assertThat(w.getSideEffects()).isEqualTo("None");
              assertThat(w.getObjectSelector().getMatchExpressions().get(0).getKey())
                  .isEqualTo("kvcache.gpustack.ai/inject");
              assertThat(w.getNamespaceSelector().getMatchExpressions().get(0).getValues())
                  .containsExactly("gpustack-system", "kube-system");
              assertThat(w.getRules().get(0).getOperations()).containsExactly("CREATE");
              assertThat(w.getClientConfig().getService().getPath())
                  .isEqualTo(Route.POD_INJECTION.path());
              assertThat(w.getClientConfig().getCaBundle()).isEqualTo("Q0E=");
            });
    ValidatingWebhookConfiguration validating = WebhookConfigurations.validating(target, Map.of());
    assertThat(validating.getWebhooks()).hasSize(Route.values().length - 1);
    for (ValidatingWebhook w : validating.getWebhooks()) {
      boolean freeze = w.getName().startsWith("pods-freeze");
      assertThat(w.getFailurePolicy()).as(w.getName()).isEqualTo(freeze ? "Ignore" : "Fail");
      assertThat(w.getTimeoutSeconds()).isEqualTo(WebhookConfigurations.TIMEOUT_SECONDS);
      assertThat(w.getSideEffects()).isEqualTo("None");
    }
  }
}
