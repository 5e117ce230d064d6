package ai.gpustack.kvcache.resources;

import ai.gpustack.kvcache.api.KVCachePoolSpec;
import ai.gpustack.kvcache.api.KVCachePoolStatus;
import com.fasterxml.jackson.annotation.JsonClassDescription;
import io.fabric8.crd.generator.annotation.AdditionalPrinterColumn;
import io.fabric8.kubernetes.client.CustomResource;
import io.fabric8.kubernetes.model.annotation.Categories;
import io.fabric8.kubernetes.model.annotation.Group;
import io.fabric8.kubernetes.model.annotation.Plural;
import io.fabric8.kubernetes.model.annotation.ShortNames;
import io.fabric8.kubernetes.model.annotation.Version;

/** Capacity on one backend that Bindings draw on. Cluster-scoped. */
@JsonClassDescription("Capacity on one KVCacheBackend that Bindings draw on. Cluster-scoped.")
@Group("worker.gpustack.ai")
@Version("v1")
@Plural("kvcachepools")
@ShortNames("kvcp")
@Categories("gpustack")
@AdditionalPrinterColumn(name = "Backend", jsonPath = ".spec.backends[0]")
@AdditionalPrinterColumn(name = "Quota", jsonPath = ".spec.quota.total")
@AdditionalPrinterColumn(name = "Endpoint", jsonPath = ".status.clientEndpoint")
@AdditionalPrinterColumn(name = "Phase", jsonPath = ".status.phase")
@AdditionalPrinterColumn(
    name = "Age",
    jsonPath = ".metadata.creationTimestamp",
    type = AdditionalPrinterColumn.Type.DATE)
public class KVCachePool extends CustomResource<KVCachePoolSpec, KVCachePoolStatus> {
  private static final long serialVersionUID = 1L;
}
