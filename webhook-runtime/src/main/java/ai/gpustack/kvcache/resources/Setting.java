package ai.gpustack.kvcache.resources;

import ai.gpustack.kvcache.api.SettingSpec;
import ai.gpustack.kvcache.api.SettingStatus;
import io.fabric8.crd.generator.annotation.AdditionalPrinterColumn;
import io.fabric8.kubernetes.api.model.Namespaced;
import io.fabric8.kubernetes.client.CustomResource;
import io.fabric8.kubernetes.model.annotation.Categories;
import io.fabric8.kubernetes.model.annotation.Group;
import io.fabric8.kubernetes.model.annotation.Plural;
import io.fabric8.kubernetes.model.annotation.ShortNames;
import io.fabric8.kubernetes.model.annotation.Version;

/** One entry of the fixed Setting catalog, in namespace gpustack-system. */
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
}
