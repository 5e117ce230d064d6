package ai.gpustack.kvcache.operator.reconcile;

import ai.gpustack.kvcache.api.SettingDefinition;
import ai.gpustack.kvcache.api.SettingStatus;
import ai.gpustack.kvcache.api.Settings;
import ai.gpustack.kvcache.operator.status.StatusWriter;
import ai.gpustack.kvcache.resources.Setting;
import io.fabric8.kubernetes.client.ConfigBuilder;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.KubernetesClientBuilder;
import io.fabric8.kubernetes.client.KubernetesClientException;
import io.javaoperatorsdk.operator.api.reconciler.Context;
import io.javaoperatorsdk.operator.api.reconciler.ControllerConfiguration;
import io.javaoperatorsdk.operator.api.reconciler.Reconciler;
import io.javaoperatorsdk.operator.api.reconciler.UpdateControl;
import java.util.Map;
import java.util.Optional;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Settings: each shows the value in force and what it does. {@link #bootstrap} creates the missing
 * ones with their default, seeded from {@code GPUSTACK_<NAME>}, and never overwrites one.
 */
@ControllerConfiguration(
    name = "setting",
    informer =
        @io.javaoperatorsdk.operator.api.config.informer.Informer(namespaces = Settings.NAMESPACE))
public final class SettingReconciler implements Reconciler<Setting> {
  private static final Logger LOG = LoggerFactory.getLogger(SettingReconciler.class);

  /**
   * Creates every catalog Setting that is missing; existing ones are left as they are. Returns
   * whether every Setting now exists. A read that fails throws (the cluster cannot be read); a
   * create the API server refuses is logged and left for the next call: on a first install the
   * Settings webhook has no endpoint until this very process is Ready, so the create must wait.
   */
  public static boolean bootstrap(KubernetesClient client, Map<String, String> environment) {
    // Creates on a client that does not retry: a refused create waits for the next round anyway,
    // and the client's own backoff would hold the operator's start (and so the webhook's only
    // endpoint) for most of a minute.
    try (KubernetesClient once =
        new KubernetesClientBuilder()
            .withConfig(
                new ConfigBuilder(client.getConfiguration())
                    .withRequestRetryBackoffLimit(0)
                    .build())
            .withKubernetesSerialization(client.getKubernetesSerialization())
            .build()) {
      return bootstrap(client, once, environment);
    }
  }

  private static boolean bootstrap(
      KubernetesClient client, KubernetesClient once, Map<String, String> environment) {
    for (SettingDefinition definition : Settings.catalog()) {
      Setting setting = new Setting();
      setting.getMetadata().setName(definition.name());
      setting.getMetadata().setNamespace(Settings.NAMESPACE);
      String seed = environment.getOrDefault(definition.seedVariable(), definition.defaultValue());
      setting.setSpec(ai.gpustack.kvcache.api.SettingSpec.builder().value(seed).build());
      if (client
              .resources(Setting.class)
              .inNamespace(Settings.NAMESPACE)
              .withName(definition.name())
              .get()
          != null) {
        continue;
      }
      try {
        once.resources(Setting.class).inNamespace(Settings.NAMESPACE).resource(setting).create();
        LOG.info("created Setting {} = {}", definition.name(), seed);
      } catch (KubernetesClientException e) {
        if (e.getCode() != 409) {
          // The next would meet the same refusal: the next round tries them all again.
          LOG.warn(
              "cannot create Setting {}/{} yet (the defaults are in force meanwhile): HTTP {} {};"
                  + " trying again",
              Settings.NAMESPACE,
              definition.name(),
              e.getCode(),
              e.getStatus() == null ? e.getMessage() : e.getStatus().getMessage());
          return false;
        }
      }
    }
    return true;
  }

  @Override
  public UpdateControl<Setting> reconcile(Setting setting, Context<Setting> context) {
    Optional<SettingDefinition> definition = Settings.find(setting.getMetadata().getName());
    if (definition.isEmpty()) {
      return UpdateControl.noUpdate();
    }
    String value =
        setting.getSpec() == null
            ? definition.get().defaultValue()
            : setting.getSpec().value().orElse(definition.get().defaultValue());
    SettingStatus next =
        SettingStatus.builder()
            .value(value)
            .description(definition.get().description())
            .editable(true)
            .build();
    if (!next.equals(setting.getStatus())) {
      StatusWriter.write(
          context.getClient(), setting, setting.getStatus(), next, java.util.Set.of());
    }
    return UpdateControl.noUpdate();
  }
}
