package ai.gpustack.kvcache.resources;

import ai.gpustack.kvcache.api.KVCachePoolBindingSpec;
import ai.gpustack.kvcache.api.KVCachePoolBindingStatus;
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
 * Grants its namespace a reuse domain on a pool and declares the KV-cache dtype every engine
 * attached through it runs with.
 */
@JsonClassDescription(
    "Grants its namespace a reuse domain on a pool and declares the KV-cache dtype every engine"
        + " attached through it runs with.")
@Group("worker.gpustack.ai")
@Version("v1")
@Plural("kvcachepoolbindings")
@ShortNames("kvcpb")
@Categories("gpustack")
@AdditionalPrinterColumn(name = "Pool", jsonPath = ".spec.poolRef.name")
@AdditionalPrinterColumn(name = "Domain", jsonPath = ".spec.domain.name")
@AdditionalPrinterColumn(
    name = "BlockSize",
    jsonPath = ".spec.domain.blockSize",
    type = AdditionalPrinterColumn.Type.INTEGER)
@AdditionalPrinterColumn(name = "Dtype", jsonPath = ".spec.domain.dtype")
@AdditionalPrinterColumn(name = "Phase", jsonPath = ".status.phase")
@AdditionalPrinterColumn(
    name = "Age",
    jsonPath = ".metadata.creationTimestamp",
    type = AdditionalPrinterColumn.Type.DATE)
public class KVCachePoolBinding
    extends CustomResource<KVCachePoolBindingSpec, KVCachePoolBindingStatus> implements Namespaced {
  private static final long serialVersionUID = 1L;
}
