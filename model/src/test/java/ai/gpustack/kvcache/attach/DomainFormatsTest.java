package ai.gpustack.kvcache.attach;

import static org.assertj.core.api.Assertions.assertThat;

import ai.gpustack.kvcache.attach.DtypeRuling.Outcome;
import ai.gpustack.kvcache.cluster.Manifests;
import ai.gpustack.kvcache.cluster.MemoryClusterView;
import ai.gpustack.kvcache.spi.EngineRegistry;
import io.fabric8.kubernetes.api.model.HasMetadata;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import org.junit.jupiter.api.Test;

/** The one-format rule as the resolver applies it on every road. */
class DomainFormatsTest {
  private static final EngineRegistry ENGINES = EngineRegistry.load();
  private final AttachmentResolver resolver = new AttachmentResolver(ENGINES);

  private static final String STORE =
      """
      apiVersion: worker.gpustack.ai/v1
      kind: KVCacheBackend
      metadata: {name: mooncake}
      spec: {connection: {external: {clientEndpoint: "master:50051"}}}
      ---
      apiVersion: worker.gpustack.ai/v1
      kind: KVCachePool
      metadata: {name: shared}
      spec: {backends: [mooncake], quota: {total: 4Ti}}
      ---
      apiVersion: worker.gpustack.ai/v1
      kind: KVCachePoolBinding
      metadata: {name: b, namespace: ns}
      spec: {poolRef: {name: shared}, domain: {name: d, blockSize: 16, dtype: %s}, quota: {ceiling: 1Ti}}
      """;

  private static String deployment(String name, String created, String engine, String version) {
    return """
        ---
        apiVersion: worker.gpustack.ai/v1
        kind: ModelDeployment
        metadata: {name: %s, namespace: ns, creationTimestamp: "%s"}
        spec:
          model: {name: m}
          engine: {name: %s, version: "%s"}
          kvCache: {poolRef: {name: b}}
          roles: [{name: server, replicas: 1}]
        """
        .formatted(name, created, engine, version);
  }

  private static String injectedPod(String name, String created, String version) {
    return """
        ---
        apiVersion: v1
        kind: Pod
        metadata:
          name: %s
          namespace: ns
          creationTimestamp: "%s"
          labels: {kvcache.gpustack.ai/inject: "true"}
          annotations:
            kvcache.gpustack.ai/binding: b
            kvcache.gpustack.ai/engine: vLLM
            kvcache.gpustack.ai/engine-version: "%s"
            kvcache.gpustack.ai/injected: "{}"
        spec: {containers: [{name: main, image: x}]}
        """
        .formatted(name, created, version);
  }

  private static MemoryClusterView cluster(String dtype, String... more) throws Exception {
    java.nio.file.Path file = java.nio.file.Files.createTempFile("cluster", ".yaml");
    java.nio.file.Files.writeString(file, STORE.formatted(dtype) + String.join("", more));
    List<HasMetadata> objects = new ArrayList<>(Manifests.objects(List.of(file)));
    java.nio.file.Files.delete(file);
    return MemoryClusterView.of(objects);
  }

  private Attachment resolve(
      MemoryClusterView cluster, Workload self, String engine, String version) {
    return resolver.resolve(
        new BindingRef("ns", "b", "spec.kvCache.poolRef.name"),
        self,
        ENGINES.find(engine).orElseThrow(),
        Optional.of(version),
        cluster.settings(),
        cluster);
  }

  private static Workload stored(String name, String created) {
    return new Workload(Workload.MODEL_DEPLOYMENT, name, Optional.of(Instant.parse(created)));
  }

  @Test
  void the_earliest_attachment_sets_the_format_even_when_it_is_an_injected_pod() throws Exception {
    MemoryClusterView cluster =
        cluster(
            "fp8",
            injectedPod("old-0", "2026-01-01T00:00:00Z", "0.4.2"),
            deployment("md", "2026-02-01T00:00:00Z", "vLLM", "0.6.0"));
    Attachment md = resolve(cluster, stored("md", "2026-02-01T00:00:00Z"), "vLLM", "0.6.0");
    assertThat(md.dtype().outcome()).isEqualTo(Outcome.FORMAT_DIFFERS);
    assertThat(md.refusal()).get().extracting(Refusal::reason).isEqualTo(Refusal.FORMAT_DIFFERS);
    assertThat(md.dtype().message()).contains("since Pod/old-0");
  }

  @Test
  void the_earliest_attachment_itself_is_never_held() throws Exception {
    MemoryClusterView cluster =
        cluster(
            "fp8",
            deployment("first", "2026-01-01T00:00:00Z", "vLLM", "0.4.2"),
            deployment("later", "2026-02-01T00:00:00Z", "vLLM", "0.6.0"));
    assertThat(
            resolve(cluster, stored("first", "2026-01-01T00:00:00Z"), "vLLM", "0.4.2").attaches())
        .isTrue();
    // Under admission the changed deployment is measured against the others, not itself.
    Attachment update =
        resolve(cluster, Workload.admitted(Workload.MODEL_DEPLOYMENT, "first"), "vLLM", "0.6.0");
    assertThat(update.dtype().outcome()).isEqualTo(Outcome.ACCEPTED);
  }

  @Test
  void engines_agreeing_on_a_format_attach_whatever_their_spellings_or_versions() throws Exception {
    MemoryClusterView cluster =
        cluster("bfloat16", deployment("v", "2026-01-01T00:00:00Z", "vLLM", "0.11.0"));
    Attachment sglang =
        resolve(cluster, Workload.admitted(Workload.MODEL_DEPLOYMENT, "s"), "SGLang", "0.5.16");
    assertThat(sglang.attaches()).isTrue();
    assertThat(sglang.warnings()).isEmpty();
  }

  @Test
  void a_stored_auto_binding_is_admitted_with_a_warning_naming_the_engines() throws Exception {
    MemoryClusterView cluster =
        cluster("auto", deployment("v", "2026-01-01T00:00:00Z", "vLLM", "0.11.0"));
    Attachment sglang =
        resolve(cluster, Workload.admitted(Workload.MODEL_DEPLOYMENT, "s"), "SGLang", "0.5.16");
    assertThat(sglang.attaches()).isTrue();
    assertThat(sglang.warnings())
        .singleElement()
        .asString()
        .contains("resolves from the model it loads (vLLM 0.11.0, SGLang 0.5.16)");
  }

  @Test
  void with_the_check_off_no_format_is_compared() throws Exception {
    MemoryClusterView cluster =
        cluster("fp8", deployment("first", "2026-01-01T00:00:00Z", "vLLM", "0.4.2"))
            .withSetting("kv-cache-dtype-spelling-check", "Off");
    Attachment later =
        resolve(cluster, Workload.admitted(Workload.MODEL_DEPLOYMENT, "x"), "vLLM", "0.6.0");
    assertThat(later.dtype().outcome()).isEqualTo(Outcome.UNCHECKED);
    assertThat(later.attaches()).isTrue();
  }
}
