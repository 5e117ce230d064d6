package ai.gpustack.kvcache.operator.migrate;

import ai.gpustack.kvcache.api.Settings;
import ai.gpustack.kvcache.resources.Setting;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.dsl.base.PatchContext;
import io.fabric8.kubernetes.client.dsl.base.PatchType;
import java.util.Optional;
import java.util.stream.Stream;

/**
 * The dtype ownership Setting as a migration reads and writes it, and the shutdown hook that
 * restores it should the run be stopped between turning it off and restoring it.
 */
final class DtypeSetting {
  private static final ObjectMapper JSON = new ObjectMapper();

  private final KubernetesClient client;
  private Thread restoreHook;

  DtypeSetting(KubernetesClient client) {
    this.client = client;
  }

  /** Its value; empty when no Setting object exists. */
  Optional<String> value() {
    Setting setting =
        client
            .resources(Setting.class)
            .inNamespace(Settings.NAMESPACE)
            .withName(Planner.SETTING)
            .get();
    return Optional.ofNullable(setting).map(s -> Setting.values(Stream.of(s)).get(Planner.SETTING));
  }

  /** Sets it to {@code value}, creating the Setting object when there is none. */
  void write(String value) {
    ObjectNode patch = JSON.createObjectNode();
    patch.putObject("spec").put("value", value);
    var resource =
        client.resources(Setting.class).inNamespace(Settings.NAMESPACE).withName(Planner.SETTING);
    if (resource.get() == null) {
      ObjectNode created = JSON.createObjectNode();
      created.put("apiVersion", "gpustack.ai/v1").put("kind", "Setting");
      created
          .putObject("metadata")
          .put("name", Planner.SETTING)
          .put("namespace", Settings.NAMESPACE);
      created.putObject("spec").put("value", value);
      Migrator.create(
          client, client.getKubernetesSerialization().convertValue(created, Setting.class));
    } else {
      resource.patch(PatchContext.of(PatchType.JSON_MERGE), patch.toString());
    }
  }

  /** Runs {@code restore} when the JVM shuts down before {@link #cancelRestoreOnShutdown}. */
  void restoreOnShutdown(Runnable restore) {
    if (restoreHook == null) {
      restoreHook = new Thread(restore, "kvcache-migrate-restore-setting");
      Runtime.getRuntime().addShutdownHook(restoreHook);
    }
  }

  void cancelRestoreOnShutdown() {
    if (restoreHook != null) {
      try {
        Runtime.getRuntime().removeShutdownHook(restoreHook);
      } catch (IllegalStateException shuttingDown) {
        // The hook is running this very restore.
      }
      restoreHook = null;
    }
  }
}
