package ai.gpustack.kvcache.observe;

import static java.util.concurrent.CompletableFuture.completedFuture;
import static org.assertj.core.api.Assertions.assertThat;

import ai.gpustack.kvcache.cluster.Manifests;
import ai.gpustack.kvcache.cluster.MemoryClusterView;
import ai.gpustack.kvcache.resources.ModelDeployment;
import ai.gpustack.kvcache.spi.EngineRegistry;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.PodBuilder;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.Test;

/** One replica read: argv, report, verdict, and every way the report can fail. */
class DtypeObserverTest {
  private static final EngineRegistry ENGINES = EngineRegistry.load();

  private static MemoryClusterView cluster(String dtype, String owned) throws Exception {
    Path file = Files.createTempFile("cluster", ".yaml");
    Files.writeString(
        file,
        """
        apiVersion: worker.gpustack.ai/v1
        kind: KVCachePoolBinding
        metadata: {name: chat, namespace: ns}
        spec: {poolRef: {name: shared}, domain: {name: d, blockSize: 16, dtype: %s}, quota: {ceiling: 1Ti}}
        ---
        apiVersion: gpustack.ai/v1
        kind: Setting
        metadata: {name: model-deployment-kv-cache-dtype-owned, namespace: gpustack-system}
        spec: {value: "%s"}
        """
            .formatted(dtype, owned));
    MemoryClusterView view = MemoryClusterView.of(Manifests.objects(List.of(file)));
    Files.delete(file);
    return view;
  }

  private static ModelDeployment md(String engine, String version) {
    return ai.gpustack.kvcache.resources.KvCacheSerialization.create()
        .unmarshal(
            """
            apiVersion: worker.gpustack.ai/v1
            kind: ModelDeployment
            metadata: {name: md, namespace: ns}
            spec:
              model: {name: m}
              engine: {name: %s, version: "%s"}
              kvCache: {poolRef: {name: chat}}
              roles: [{name: server}]
            """
                .formatted(engine, version),
            ModelDeployment.class);
  }

  private static Pod pod(String... command) {
    return new PodBuilder()
        .withNewMetadata()
        .withName("md-server-0")
        .withNamespace("ns")
        .withUid("u1")
        .endMetadata()
        .withNewSpec()
        .addNewContainer()
        .withName("main")
        .withCommand(command)
        .endContainer()
        .endSpec()
        .build();
  }

  private static Observation read(
      String engine, String version, String dtype, ReportFetcher fetcher, String... command)
      throws Exception {
    return new DtypeObserver(ENGINES, fetcher)
        .managed(md(engine, version), pod(command), cluster(dtype, "true"))
        .join();
  }

  private static ReportFetcher answering(String engine, String reported) {
    return (pod, port, path) ->
        completedFuture(
            Fetch.answered(
                ENGINES.find(engine).orElseThrow().dtypeReports().get(0).sample(reported)));
  }

  @Test
  void the_argv_dtype_is_the_last_occurrence_the_release_reads_and_the_port_its_listen_flag()
      throws Exception {
    int[] asked = new int[1];
    Observation o =
        read(
            "vLLM",
            "0.29.0",
            "bfloat16",
            (pod, port, path) -> {
              asked[0] = port;
              return completedFuture(
                  Fetch.answered(
                      ENGINES.find("vLLM").orElseThrow().dtypeReports().get(0).sample("fp8")));
            },
            "vllm",
            "serve",
            "m",
            "--kv-cache-dtype",
            "bfloat16",
            "--kv_cache_dtype=fp8",
            "--port",
            "8080");
    assertThat(o.argvDtype()).contains("fp8");
    assertThat(o.observedDtype()).contains("fp8");
    assertThat(o.verdict()).isEqualTo(Verdict.DIFFERS);
    assertThat(o.source()).isEqualTo("GET :8080/metrics");
    assertThat(asked[0]).isEqualTo(8080);
  }

  @Test
  void a_synonym_the_engine_stores_in_the_same_format_matches() throws Exception {
    Observation o =
        read(
            "SGLang",
            "0.5.18",
            "bfloat16",
            answering("SGLang", "bf16"),
            "python3",
            "-m",
            "sglang.launch_server");
    assertThat(o.verdict()).isEqualTo(Verdict.MATCHES);
    assertThat(o.source()).isEqualTo("GET :30000/server_info");
  }

  @Test
  void garbage_errors_and_silence_are_not_reported_and_say_whether_the_engine_answered()
      throws Exception {
    Observation garbage =
        read(
            "vLLM",
            "0.29.0",
            "bfloat16",
            (p, port, path) -> completedFuture(Fetch.answered("<html>oops")),
            "vllm");
    assertThat(garbage.verdict()).isEqualTo(Verdict.NOT_REPORTED);
    assertThat(garbage.reached()).isTrue();
    assertThat(garbage.observedDtype()).isEmpty();
    Observation down =
        read(
            "vLLM",
            "0.29.0",
            "bfloat16",
            (p, port, path) -> completedFuture(Fetch.failed("HTTP 404")),
            "vllm");
    assertThat(down.verdict()).isEqualTo(Verdict.NOT_REPORTED);
    assertThat(down.reached()).isFalse();
    assertThat(down.source()).isEqualTo("GET :8000/metrics: HTTP 404");
    // vLLM before 0.3.3 exported no cache config: nothing is asked.
    Observation old =
        read(
            "vLLM",
            "0.3.0",
            "bfloat16",
            (p, port, path) -> {
              throw new AssertionError("asked " + path);
            },
            "vllm");
    assertThat(old.verdict()).isEqualTo(Verdict.NOT_REPORTED);
    assertThat(old.source()).isEqualTo("vLLM 0.3.0 reports no KV-cache dtype");
  }

  @Test
  void what_was_read_does_not_depend_on_the_setting_which_callers_apply() throws Exception {
    Observation o =
        new DtypeObserver(ENGINES, answering("vLLM", "fp8"))
            .managed(md("vLLM", "0.29.0"), pod("vllm"), cluster("bfloat16", "false"))
            .join();
    assertThat(o.verdict()).isEqualTo(Verdict.DIFFERS);
    assertThat(o.unowned().verdict()).isEqualTo(Verdict.NOT_OWNED);
    assertThat(o.unowned().observedDtype()).contains("fp8");
  }

  @Test
  void a_report_not_shaped_like_a_dtype_is_not_believed_and_is_shown_short() throws Exception {
    String huge = "A".repeat(100_000);
    Observation o =
        read("vLLM", "0.29.0", "bfloat16", answering("vLLM", huge), "vllm", "serve", "m");
    assertThat(o.verdict()).isEqualTo(Verdict.NOT_REPORTED);
    assertThat(o.observedDtype()).isEmpty();
    assertThat(o.source())
        .isEqualTo(
            "GET :8000/metrics: the answer's dtype \""
                + "A".repeat(40)
                + "…\" (100000 characters) is not a dtype spelling (1 to 32 of a-z, 0-9 and _)");
    Observation escape =
        read("vLLM", "0.29.0", "bfloat16", answering("vLLM", "fp8\u001b[31m"), "vllm");
    assertThat(escape.verdict()).isEqualTo(Verdict.NOT_REPORTED);
    assertThat(escape.source()).contains("\"fp8\\x1b[31m\"").doesNotContain("\u001b");
  }
}
