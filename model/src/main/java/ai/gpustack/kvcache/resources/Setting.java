package ai.gpustack.kvcache.resources;

import ai.gpustack.kvcache.api.SettingSpec;
import ai.gpustack.kvcache.api.SettingStatus;
import com.fasterxml.jackson.annotation.JsonClassDescription;
import io.fabric8.crd.generator.annotation.AdditionalPrinterColumn;
import io.fabric8.kubernetes.api.model.Namespaced;
import io.fabric8.kubernetes.client.CustomResource;
import io.fabric8.kubernetes.model.annotation.Categories;
import io.fabric8.kubernetes.model.annotation.Group;
import io.fabric8.kubernetes.model.annotation.Plural;
import io.fabric8.kubernetes.model.annotation.ShortNames;
import io.fabric8.kubernetes.model.annotation.Version;
import java.util.HashMap;
import java.util.Map;
import java.util.stream.Stream;

/** One entry of the fixed Setting catalog, in namespace gpustack-system. */
@JsonClassDescription("One entry of the fixed Setting catalog, in namespace gpustack-system.")
@Group("gpustack.ai")
@Version("v1")
@Plural("settings")
@ShortNames("set")
@Categories("gpustack")
@AdditionalPrinterColumn(name = "Value", jsonPath = ".status.value")
@AdditionalPrinterColumn(
    name = "Age",
    jsonPath = ".metadata.creationTimestamp",
    type = AdditionalPrinterColumn.Type.DATE)
public class Setting extends CustomResource<SettingSpec, SettingStatus> implements Namespaced {
  private static final long serialVersionUID = 1L;

  /** The values {@code settings} hold, by name; a Setting without a value is left out. */
  public static Map<String, String> values(Stream<? extends Setting> settings) {
    Map<String, String> values = new HashMap<>();
    settings
        .filter(s -> s.getSpec() != null)
        .forEach(s -> s.getSpec().value().ifPresent(v -> values.put(s.getMetadata().getName(), v)));
    return values;
  }
}
