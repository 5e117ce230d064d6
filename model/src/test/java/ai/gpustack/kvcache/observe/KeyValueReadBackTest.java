package ai.gpustack.kvcache.observe;

import static java.util.concurrent.CompletableFuture.completedFuture;
import static org.assertj.core.api.Assertions.assertThat;

import ai.gpustack.kvcache.api.KvFormat;
import ai.gpustack.kvcache.cluster.Manifests;
import ai.gpustack.kvcache.cluster.MemoryClusterView;
import ai.gpustack.kvcache.resources.KvCacheSerialization;
import ai.gpustack.kvcache.resources.ModelDeployment;
import ai.gpustack.kvcache.spi.ArgvDialect;
import ai.gpustack.kvcache.spi.AttachmentRequest;
import ai.gpustack.kvcache.spi.CacheAttachment;
import ai.gpustack.kvcache.spi.DtypeReport;
import ai.gpustack.kvcache.spi.DtypeSpellings;
import ai.gpustack.kvcache.spi.Engine;
import ai.gpustack.kvcache.spi.EngineRegistry;
import ai.gpustack.kvcache.spi.FlagInventory;
import ai.gpustack.kvcache.spi.FlagSpec;
import ai.gpustack.kvcache.spi.SpellingTable;
import ai.gpustack.kvcache.spi.VersionRange;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.PodBuilder;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import org.junit.jupiter.api.Test;

/**
 * Reading back an engine that types keys and values with two flags and is handed {@code bf16} for
 * the Binding's {@code bfloat16}: both flags are read, and the engine's values read back as the
 * Binding's spellings.
 */
class KeyValueReadBackTest {
  /** Two dtype flags, short aliases, {@code bfloat16} handed over as {@code bf16}. */
  static final class KeyValueEngine implements Engine {
    @Override
    public String id() {
      return "kv";
    }

    @Override
    public String artifact() {
      return "com.example:kv";
    }

    @Override
    public String dtypeFlag() {
      return "--cache-type-k";
    }

    @Override
    public List<String> dtypeFlags() {
      return List.of("--cache-type-k", "--cache-type-v");
    }

    @Override
    public SpellingTable dtypeSpellings() {
      return SpellingTable.builder()
          .addEntries(
              DtypeSpellings.of(
                      null,
                      null,
                      "test",
                      Map.of(
                          "bfloat16",
                          KvFormat.BFLOAT16,
                          "q4_0",
                          KvFormat.engineDefined("kv", "q4_0", "GGML Q4_0")))
                  .withEngineValues(Map.of("bfloat16", "bf16")))
          .build();
    }

    @Override
    public ArgvDialect dialect() {
      return ArgvDialect.click();
    }

    @Override
    public List<FlagInventory> flagInventories() {
      return List.of(
          FlagInventory.builder()
              .versions(VersionRange.any())
              .source("test")
              .addFlags(
                  FlagSpec.value("--cache-type-k").withAliases("-ctk"),
                  FlagSpec.value("--cache-type-v").withAliases("-ctv"),
                  FlagSpec.value("--host"),
                  FlagSpec.value("--port"))
              .build());
    }

    @Override
    public List<DtypeReport> dtypeReports() {
      return List.of(
          new DtypeReport() {
            @Override
            public VersionRange versions() {
              return VersionRange.any();
            }

            @Override
            public String source() {
              return "test";
            }

            @Override
            public String path() {
              return "/props";
            }

            @Override
            public Optional<String> read(String body) {
              return body.startsWith("type_k=")
                  ? Optional.of(body.substring("type_k=".length()))
                  : Optional.empty();
            }

            @Override
            public String sample(String spelling) {
              return "type_k=" + spelling;
            }

            @Override
            public List<ReportFixture> fixtures() {
              return List.of();
            }
          });
    }

    @Override
    public List<String> baseArgv(String model) {
      return List.of("kv-server", "-m", model);
    }

    @Override
    public int defaultPort() {
      return 8080;
    }

    @Override
    public CacheAttachment attachment(AttachmentRequest request) {
      return CacheAttachment.builder().build();
    }

    @Override
    public Set<String> ownedFlags() {
      return Set.of();
    }

    @Override
    public Set<String> ownedEnv() {
      return Set.of();
    }

    @Override
    public Set<String> launchPrograms() {
      return Set.of("kv-server");
    }
  }

  private static Observation read(String reported, String... args) throws Exception {
    Path file = Files.createTempFile("cluster", ".yaml");
    Files.writeString(
        file,
        """
        apiVersion: worker.gpustack.ai/v1
        kind: KVCachePoolBinding
        metadata: {name: chat, namespace: ns}
        spec: {poolRef: {name: shared}, domain: {name: d, blockSize: 16, dtype: bfloat16}, quota: {ceiling: 1Ti}}
        """);
    MemoryClusterView cluster = MemoryClusterView.of(Manifests.objects(List.of(file)));
    Files.delete(file);
    ModelDeployment md =
        KvCacheSerialization.create()
            .unmarshal(
                """
                apiVersion: worker.gpustack.ai/v1
                kind: ModelDeployment
                metadata: {name: md, namespace: ns}
                spec:
                  model: {name: m}
                  engine: {name: kv}
                  kvCache: {poolRef: {name: chat}}
                  roles: [{name: server}]
                """,
                ModelDeployment.class);
    Pod pod =
        new PodBuilder()
            .withNewMetadata()
            .withName("md-server-0")
            .withNamespace("ns")
            .endMetadata()
            .withNewSpec()
            .addNewContainer()
            .withName("main")
            .withCommand("kv-server", "-m", "m")
            .withArgs(args)
            .endContainer()
            .endSpec()
            .build();
    ReportFetcher fetcher =
        (p, port, path) -> completedFuture(Fetch.answered("type_k=" + reported));
    return new DtypeObserver(EngineRegistry.of(List.of(new KeyValueEngine())), fetcher)
        .managed(md, pod, cluster)
        .join();
  }

  @Test
  void the_engines_value_on_both_flags_and_in_its_report_reads_back_as_the_bindings_spelling()
      throws Exception {
    Observation o = read("bf16", "--cache-type-k", "bf16", "-ctv", "bf16");
    assertThat(o.argvDtype()).contains("bfloat16");
    assertThat(o.observedDtype()).contains("bfloat16");
    assertThat(o.verdict()).isEqualTo(Verdict.MATCHES);
  }

  @Test
  void a_value_type_other_than_the_keys_differs_even_when_the_report_shows_only_keys()
      throws Exception {
    Observation o = read("bf16", "--cache-type-k", "bf16", "-ctv", "q4_0");
    assertThat(o.verdict()).isEqualTo(Verdict.DIFFERS);
    assertThat(o.observedDtype()).contains("q4_0");
    assertThat(o.argvDtype()).contains("--cache-type-k bfloat16, --cache-type-v q4_0");
    assertThat(o.source()).isEqualTo("argv: --cache-type-k bfloat16, --cache-type-v q4_0");
  }

  @Test
  void a_hostile_value_in_the_argv_is_escaped_and_cut_short_wherever_it_is_shown()
      throws Exception {
    String hostile = "q4_0\u001b[31m" + "x".repeat(500);
    Observation o = read("bf16", "-ctk", "bf16", "-ctv", hostile);
    assertThat(o.verdict()).isEqualTo(Verdict.DIFFERS);
    assertThat(o.observedDtype().orElseThrow())
        .startsWith("q4_0\\x1b[31m")
        .endsWith("…")
        .as("64 characters kept, the escape character written as four, then the ellipsis")
        .hasSize(68)
        .doesNotContain("\u001b");
    assertThat(o.source()).doesNotContain("\u001b").hasSizeLessThan(160);
  }

  @Test
  void a_reported_value_the_table_does_not_translate_is_shown_as_reported_and_differs()
      throws Exception {
    Observation o = read("q4_0");
    assertThat(o.argvDtype()).isEmpty();
    assertThat(o.observedDtype()).contains("q4_0");
    assertThat(o.verdict()).isEqualTo(Verdict.DIFFERS);
  }
}
