package com.example.consumer;

import ai.gpustack.kvcache.admission.Admission;
import ai.gpustack.kvcache.admission.Decision;
import ai.gpustack.kvcache.admission.Route;
import ai.gpustack.kvcache.cluster.MemoryClusterView;
import ai.gpustack.kvcache.admission.Request;
import ai.gpustack.kvcache.api.ReuseDomain;
import ai.gpustack.kvcache.resources.KvCacheSerialization;
import ai.gpustack.kvcache.spi.AttachmentRequest;
import ai.gpustack.kvcache.spi.EngineRegistry;
import ai.gpustack.kvcache.spi.ManagedRole;
import com.fasterxml.jackson.databind.JsonNode;
import io.fabric8.kubernetes.api.model.HasMetadata;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.client.utils.KubernetesSerialization;
import java.util.ArrayList;
import java.util.List;
import java.util.UUID;

/**
 * Another operator's use of gpustack-kvcache: it builds its own workloads, but renders their argv
 * through the engine modules and asks the same admission handler the webhook runs.
 */
public final class KvCacheConsumer {
  private final EngineRegistry engines = EngineRegistry.load();
  private final KubernetesSerialization serialization = KvCacheSerialization.create();

  /**
   * The command of a managed role of {@code engine}, attached to a domain declaring {@code dtype}.
   */
  public List<String> managedCommand(
      String engine, String model, String dtype, String clientEndpoint, List<String> extraArgs) {
    AttachmentRequest attachment =
        AttachmentRequest.builder()
            .clientEndpoint(clientEndpoint)
            .domain(ReuseDomain.builder().name("shared").blockSize(16).dtype(dtype).build())
            .build();
    return engines
        .resolve(engine)
        .renderCommand(
            ManagedRole.builder()
                .model(model)
                .addAllExtraArgs(extraArgs)
                .attachment(attachment)
                .build());
  }

  /** What the injection webhook answers for {@code pod}, given the objects it may read. */
  public Decision admit(Pod pod, List<HasMetadata> cluster) {
    Admission admission = new Admission(engines, MemoryClusterView.of(cluster));
    JsonNode object = serialization.convertValue(pod, JsonNode.class);
    return admission.decide(
        Route.POD_INJECTION,
        new Request(
            UUID.randomUUID().toString(),
            "Pod",
            "CREATE",
            pod.getMetadata().getNamespace(),
            "",
            object,
            null));
  }

  /** Reads every document of {@code yaml} as the object its kind names. */
  public List<HasMetadata> read(String yaml) {
    List<HasMetadata> out = new ArrayList<>();
    for (String doc : yaml.split("(?m)^---$")) {
      if (!doc.isBlank()) {
        out.add(serialization.unmarshal(doc));
      }
    }
    return out;
  }

  public static void main(String[] args) {
    KvCacheConsumer consumer = new KvCacheConsumer();
    System.out.println(
        String.join(
            " ",
            consumer.managedCommand(
                "vLLM", "qwen/qwen3-8b", "bfloat16", "mooncake-master:50051", List.of())));
  }
}
