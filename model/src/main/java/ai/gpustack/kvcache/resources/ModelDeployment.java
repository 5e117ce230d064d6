package ai.gpustack.kvcache.resources;

import ai.gpustack.kvcache.api.ModelDeploymentSpec;
import ai.gpustack.kvcache.api.ModelDeploymentStatus;
import com.fasterxml.jackson.annotation.JsonClassDescription;
import io.fabric8.crd.generator.annotation.AdditionalPrinterColumn;
import io.fabric8.kubernetes.api.model.Namespaced;
import io.fabric8.kubernetes.client.CustomResource;
import io.fabric8.kubernetes.model.annotation.Categories;
import io.fabric8.kubernetes.model.annotation.Group;
import io.fabric8.kubernetes.model.annotation.Plural;
import io.fabric8.kubernetes.model.annotation.ShortNames;
import io.fabric8.kubernetes.model.annotation.Version;

/**
 * A model served by one engine in 1 to 10 roles, optionally attached to a KV cache pool through a
 * Binding.
 */
@JsonClassDescription(
    "A model served by one engine in 1 to 10 roles, optionally attached to a KV cache pool through"
        + " a Binding.")
@Group("worker.gpustack.ai")
@Version("v1")
@Plural("modeldeployments")
@ShortNames("md")
@Categories("gpustack")
@AdditionalPrinterColumn(name = "Engine", jsonPath = ".spec.engine.name")
@AdditionalPrinterColumn(name = "Model", jsonPath = ".spec.model.name")
@AdditionalPrinterColumn(name = "Binding", jsonPath = ".spec.kvCache.poolRef.name")
@AdditionalPrinterColumn(name = "Phase", jsonPath = ".status.phase")
@AdditionalPrinterColumn(
    name = "Age",
    jsonPath = ".metadata.creationTimestamp",
    type = AdditionalPrinterColumn.Type.DATE)
public class ModelDeployment extends CustomResource<ModelDeploymentSpec, ModelDeploymentStatus>
    implements Namespaced {
  private static final long serialVersionUID = 1L;

  /**
   * Whether {@code spec.kvCache} names Binding {@code binding} (in this deployment's namespace).
   */
  public boolean attachesThrough(String binding) {
    return getSpec() != null
        && getSpec().kvCache().map(k -> k.poolRef().name().equals(binding)).orElse(false);
  }
}
