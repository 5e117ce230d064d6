package ai.gpustack.kvcache.operator;

import io.fabric8.kubernetes.api.model.HasMetadata;
import io.fabric8.kubernetes.client.KubernetesClient;

/** Objects the operator tests share, written as YAML, and the one way they are created. */
public final class TestObjects {
  /** A backend, a pool on it, and Binding {@code ns/chat} declaring bfloat16. */
  public static final String STORE =
      """
      apiVersion: worker.gpustack.ai/v1
      kind: KVCacheBackend
      metadata: {name: mooncake}
      spec: {connection: {external: {clientEndpoint: "master.kv.svc:50051"}}}
      ---
      apiVersion: worker.gpustack.ai/v1
      kind: KVCachePool
      metadata: {name: shared}
      spec: {backends: [mooncake], quota: {total: 4Ti}}
      ---
      apiVersion: worker.gpustack.ai/v1
      kind: KVCachePoolBinding
      metadata: {name: chat, namespace: ns}
      spec: {poolRef: {name: shared}, domain: {name: chat, blockSize: 16, dtype: bfloat16}, quota: {ceiling: 1Ti}}
      """;

  private TestObjects() {}

  /** Creates every document of {@code yaml}, in order; throws when the API server refuses one. */
  public static void apply(KubernetesClient client, String yaml) {
    for (String doc : yaml.split("(?m)^---$")) {
      if (!doc.isBlank()) {
        HasMetadata o = client.getKubernetesSerialization().unmarshal(doc);
        client.resource(o).create();
      }
    }
  }
}
