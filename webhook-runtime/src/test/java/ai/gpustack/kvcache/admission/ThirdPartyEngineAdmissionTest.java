package ai.gpustack.kvcache.admission;

import static org.assertj.core.api.Assertions.assertThat;

import ai.gpustack.kvcache.api.KvFormat;
import ai.gpustack.kvcache.cluster.MemoryClusterView;
import ai.gpustack.kvcache.spi.ArgvDialect;
import ai.gpustack.kvcache.spi.AttachmentRequest;
import ai.gpustack.kvcache.spi.CacheAttachment;
import ai.gpustack.kvcache.spi.DtypeSpellings;
import ai.gpustack.kvcache.spi.Engine;
import ai.gpustack.kvcache.spi.EngineRegistry;
import ai.gpustack.kvcache.spi.FlagInventory;
import ai.gpustack.kvcache.spi.FlagSpec;
import ai.gpustack.kvcache.spi.SpellingTable;
import ai.gpustack.kvcache.spi.VersionRange;
import ai.gpustack.kvcache.spi.VersionScheme;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.dataformat.yaml.YAMLFactory;
import io.fabric8.zjsonpatch.JsonPatch;
import java.util.Base64;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.junit.jupiter.api.Test;

/**
 * Admission with an engine that types keys and values with two flags with short aliases, parses
 * exact names without {@code --flag=value}, numbers its builds, is handed {@code bf16} for a
 * Binding's {@code bfloat16}, launches through a subcommand and reads {@code none} as the model's
 * dtype: each capability the SPI gained is applied by the webhook, not only rendered by the module.
 */
class ThirdPartyEngineAdmissionTest {
  private static final ObjectMapper YAML = new ObjectMapper(new YAMLFactory());

  /** llama.cpp-style: {@code kv serve}, {@code --cache-type-k X --cache-type-v X} or -ctk/-ctv. */
  static final class KeyValueServer implements Engine {
    @Override
    public String id() {
      return "kv-server";
    }

    @Override
    public String artifact() {
      return "com.example:kv-server";
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
                      "b2251",
                      null,
                      "test",
                      Map.of(
                          "none", KvFormat.MODEL_DEPENDENT,
                          "bfloat16", KvFormat.BFLOAT16,
                          "f16", KvFormat.FLOAT16,
                          "q4_0", KvFormat.engineDefined("kv-server", "q4_0", "GGML Q4_0")))
                  .withEngineValues(Map.of("bfloat16", "bf16")))
          .build();
    }

    @Override
    public VersionScheme versionScheme() {
      return VersionScheme.BUILD_NUMBER;
    }

    @Override
    public ArgvDialect dialect() {
      return ArgvDialect.builder()
          .parser("exact names, no --flag=value")
          .inlineValues(false)
          .underscoresAsDashes(true)
          .dottedMembers(false)
          .abbreviations(false)
          .doubleDashEndsOptions(false)
          .build();
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
    public List<String> baseArgv(String model) {
      return List.of("kv", "serve", model);
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
      return Set.of("kv serve");
    }
  }

  private JsonNode answer(String request) throws Exception {
    JsonNode base = YAML.readTree(getClass().getResourceAsStream("/admission/base.yaml"));
    JsonNode c = YAML.readTree(request);
    Admission admission =
        new Admission(
            EngineRegistry.of(List.of(new KeyValueServer())),
            MemoryClusterView.of(AdmissionFixturesTest.cluster(base, c)));
    JsonNode review = AdmissionFixturesTest.review(c.get("request"));
    String kind = review.get("request").get("kind").get("kind").asText();
    Route route = Route.forKind(kind, "CREATE").orElseThrow();
    return admission.review(route, review).get("response");
  }

  private static String pod(String command, String args) {
    return """
        request:
          object:
            apiVersion: v1
            kind: Pod
            metadata: {name: p, namespace: team-a, labels: {kvcache.gpustack.ai/inject: "true"},
                       annotations: {kvcache.gpustack.ai/binding: cache, kvcache.gpustack.ai/engine: kv-server}}
            spec: {containers: [{name: main, command: %s, args: %s}]}
        """
        .formatted(command, args);
  }

  @Test
  void an_injected_pod_ends_with_both_dtype_flags() throws Exception {
    String request = pod("[kv, serve]", "[m]");
    JsonNode response = answer(request);
    assertThat(response.get("allowed").asBoolean()).as("%s", response).isTrue();
    JsonNode patch = YAML.readTree(Base64.getDecoder().decode(response.get("patch").asText()));
    JsonNode pod = JsonPatch.apply(patch, YAML.readTree(request).get("request").get("object"));
    assertThat(pod.at("/spec/containers/0/args").toString())
        .as("the Binding's bfloat16 is handed over as the engine's bf16 on both flags")
        .isEqualTo("[\"m\",\"--cache-type-k\",\"bf16\",\"--cache-type-v\",\"bf16\"]");
  }

  @Test
  void a_pod_passing_the_second_dtype_flag_is_refused_naming_it() throws Exception {
    JsonNode response = answer(pod("[kv, serve]", "[m, --cache-type-v, f16]"));
    assertThat(response.get("allowed").asBoolean()).isFalse();
    assertThat(response.at("/status/message").asText())
        .contains("spec.containers[0].args[1]")
        .contains("--cache-type-v");
  }

  @Test
  void a_pod_launching_another_subcommand_of_the_program_is_refused() throws Exception {
    JsonNode response = answer(pod("[kv, bench]", "[m]"));
    assertThat(response.get("allowed").asBoolean()).isFalse();
    assertThat(response.at("/status/message").asText()).contains("kv serve");
  }

  @Test
  void a_deployment_role_passing_the_second_dtype_flag_is_refused_naming_it() throws Exception {
    JsonNode response =
        answer(
            """
            request:
              object:
                apiVersion: worker.gpustack.ai/v1
                kind: ModelDeployment
                metadata: {name: md, namespace: team-a}
                spec:
                  model: {name: m}
                  engine: {name: kv-server}
                  kvCache: {poolRef: {name: cache}}
                  roles: [{name: server, image: kv:1, extraArgs: [--cache-type-v, f16]}]
            """);
    assertThat(response.get("allowed").asBoolean()).isFalse();
    assertThat(response.at("/status/message").asText())
        .contains("spec.roles[0].extraArgs[0]")
        .contains(
            "Forbidden: role \"server\" passes --cache-type-v while it attaches a KV cache pool");
  }

  private JsonNode deployment(String engine, String extraArgs) throws Exception {
    return answer(
        """
        request:
          object:
            apiVersion: worker.gpustack.ai/v1
            kind: ModelDeployment
            metadata: {name: md, namespace: team-a}
            spec:
              model: {name: m}
              engine: %s
              kvCache: {poolRef: {name: cache}}
              roles: [{name: server, image: kv:1, extraArgs: %s}]
        """
            .formatted(engine, extraArgs));
  }

  @Test
  void a_role_passing_the_short_flag_is_refused_naming_the_field_and_the_short_spelling()
      throws Exception {
    JsonNode response =
        deployment("{name: kv-server, version: b4500}", "[--ctx-size, '8', -ctk, q4_0]");
    assertThat(response.get("allowed").asBoolean()).isFalse();
    assertThat(response.at("/status/message").asText())
        .contains(
            "spec.roles[0].extraArgs[2]: Forbidden: role \"server\" passes -ctk, which engine"
                + " \"kv-server\" reads as --cache-type-k while it attaches a KV cache pool");
  }

  @Test
  void a_spelling_the_engine_reads_as_no_flag_is_not_taken_for_one() throws Exception {
    JsonNode response = deployment("{name: kv-server}", "[--cache-type-k=q4_0]");
    assertThat(response.get("allowed").asBoolean())
        .as("the engine itself exits on --cache-type-k=q4_0: %s", response)
        .isTrue();
  }

  @Test
  void a_version_outside_the_engines_scheme_is_refused_naming_the_field_and_the_scheme()
      throws Exception {
    JsonNode response = deployment("{name: kv-server, version: 0.11.0}", "[]");
    assertThat(response.get("allowed").asBoolean()).isFalse();
    assertThat(response.at("/status/message").asText())
        .contains(
            "spec.engine.version: Invalid value: \"0.11.0\": engine \"kv-server\" numbers its"
                + " versions as a build number such as b4500 or 4500");
    String pod =
        pod("[kv, serve]", "[m]")
            .replace(
                "kvcache.gpustack.ai/engine: kv-server}",
                "kvcache.gpustack.ai/engine: kv-server, kvcache.gpustack.ai/engine-version: latest}");
    JsonNode refused = answer(pod);
    assertThat(refused.at("/status/message").asText())
        .contains(
            "metadata.annotations[kvcache.gpustack.ai/engine-version]: Invalid value: \"latest\"");
  }

  @Test
  void a_new_binding_declaring_a_spelling_that_keeps_the_models_dtype_is_refused()
      throws Exception {
    JsonNode response =
        answer(
            """
            request:
              object: {apiVersion: worker.gpustack.ai/v1, kind: KVCachePoolBinding, metadata: {name: b, namespace: team-a},
                       spec: {poolRef: {name: pool-a}, domain: {name: fresh, blockSize: 16, dtype: none}, quota: {ceiling: 1Ti}}}
            """);
    assertThat(response.get("allowed").asBoolean()).isFalse();
    assertThat(response.at("/status/message").asText())
        .contains("spec.domain.dtype: Invalid value: \"none\"")
        .contains("\"none\" leaves the KV cache at the model's own dtype on kv-server");
  }
}
