package com.example.consumer;

import static org.assertj.core.api.Assertions.assertThat;

import ai.gpustack.kvcache.admission.Decision;
import io.fabric8.kubernetes.api.model.HasMetadata;
import io.fabric8.kubernetes.api.model.Pod;
import java.util.List;
import org.junit.jupiter.api.Test;

class KvCacheConsumerTest {
  static final String CLUSTER =
      """
      apiVersion: worker.gpustack.ai/v1
      kind: KVCacheBackend
      metadata: {name: mooncake}
      spec: {connection: {external: {clientEndpoint: "mooncake-master:50051"}}}
      ---
      apiVersion: worker.gpustack.ai/v1
      kind: KVCachePool
      metadata: {name: shared}
      spec: {backends: [mooncake], quota: {total: 4Ti}}
      status: {clientEndpoint: "mooncake-master:50051"}
      ---
      apiVersion: worker.gpustack.ai/v1
      kind: KVCachePoolBinding
      metadata: {name: chat, namespace: team-a}
      spec: {poolRef: {name: shared}, domain: {name: chat, blockSize: 16, dtype: bfloat16}, quota: {ceiling: 1Ti}}
      """;

  static final String POD =
      """
      apiVersion: v1
      kind: Pod
      metadata:
        name: server
        namespace: team-a
        labels: {kvcache.gpustack.ai/inject: "true"}
        annotations: {kvcache.gpustack.ai/binding: chat, kvcache.gpustack.ai/engine: vLLM}
      spec:
        containers:
          - name: vllm
            image: vllm/vllm-openai:v0.29.0
            command: [vllm]
            args: [serve, qwen/qwen3-8b%s]
      """;

  final KvCacheConsumer consumer = new KvCacheConsumer();

  @Test
  void a_managed_role_gets_the_binding_dtype_before_its_own_arguments() {
    List<String> argv =
        consumer.managedCommand(
            "vllm",
            "qwen/qwen3-8b",
            "bfloat16",
            "mooncake-master:50051",
            List.of("--max-model-len", "8192"));
    assertThat(argv).startsWith("vllm", "serve", "qwen/qwen3-8b");
    int dtype = argv.indexOf("--kv-cache-dtype");
    assertThat(argv.get(dtype + 1)).isEqualTo("bfloat16");
    assertThat(dtype).isLessThan(argv.indexOf("--max-model-len"));
    assertThat(argv.stream().filter("--kv-cache-dtype"::equals)).hasSize(1);
  }

  @Test
  void the_injection_handler_patches_a_pod_and_refuses_one_passing_the_flag() {
    List<HasMetadata> cluster = consumer.read(CLUSTER);
    Pod plain = (Pod) consumer.read(POD.formatted("")).get(0);
    Decision allowed = consumer.admit(plain, cluster);
    assertThat(allowed.allowed()).isTrue();
    assertThat(allowed.patch()).isPresent();
    assertThat(allowed.patch().get().toString()).contains("--kv-cache-dtype", "bfloat16");

    Pod own = (Pod) consumer.read(POD.formatted(", --kv-cache-dtype, fp8")).get(0);
    Decision refused = consumer.admit(own, cluster);
    assertThat(refused.allowed()).isFalse();
    assertThat(refused.message()).contains("already passes --kv-cache-dtype");
  }
}
