package ai.gpustack.kvcache.resources;

import ai.gpustack.kvcache.api.KVCacheBackendSpec;
import ai.gpustack.kvcache.api.KVCacheBackendStatus;
import com.fasterxml.jackson.annotation.JsonClassDescription;
import io.fabric8.crd.generator.annotation.AdditionalPrinterColumn;
import io.fabric8.kubernetes.client.CustomResource;
import io.fabric8.kubernetes.model.annotation.Categories;
import io.fabric8.kubernetes.model.annotation.Group;
import io.fabric8.kubernetes.model.annotation.Plural;
import io.fabric8.kubernetes.model.annotation.ShortNames;
import io.fabric8.kubernetes.model.annotation.Version;

/** A KV cache store (an existing Mooncake master) that pools publish. Cluster-scoped. */
@JsonClassDescription(
    "A KV cache store, an existing Mooncake master, that pools publish. Cluster-scoped.")
@Group("worker.gpustack.ai")
@Version("v1")
@Plural("kvcachebackends")
@ShortNames("kvcb")
@Categories("gpustack")
@AdditionalPrinterColumn(name = "Endpoint", jsonPath = ".spec.connection.external.clientEndpoint")
@AdditionalPrinterColumn(name = "Phase", jsonPath = ".status.phase")
@AdditionalPrinterColumn(
    name = "Age",
    jsonPath = ".metadata.creationTimestamp",
    type = AdditionalPrinterColumn.Type.DATE)
public class KVCacheBackend extends CustomResource<KVCacheBackendSpec, KVCacheBackendStatus> {
  private static final long serialVersionUID = 1L;
}
