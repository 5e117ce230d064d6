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
 * Admission with an engine that types keys and values with two flags, launches through a subcommand
 * and reads {@code none} as the model's dtype: each capability the SPI gained is applied by the
 * webhook, not only rendered by the module.
 */
class ThirdPartyEngineAdmissionTest {
  private static final ObjectMapper YAML = new ObjectMapper(new YAMLFactory());

  /** llama.cpp-style: {@code kv serve}, {@code --cache-type-k X --cache-type-v X}. */
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
                  null,
                  null,
                  "test",
                  Map.of(
                      "none", KvFormat.MODEL_DEPENDENT,
                      "bfloat16", KvFormat.BFLOAT16,
                      "f16", KvFormat.FLOAT16)))
          .build();
    }

    @Override
    public ArgvDialect dialect() {
      return ArgvDialect.argparse();
    }

    @Override
    public List<FlagInventory> flagInventories() {
      return List.of(
          FlagInventory.builder()
              .versions(VersionRange.any())
              .source("test")
              .addFlags(
                  FlagSpec.value("--cache-type-k"),
                  FlagSpec.value("--cache-type-v"),
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
        .isEqualTo("[\"m\",\"--cache-type-k\",\"bfloat16\",\"--cache-type-v\",\"bfloat16\"]");
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
                  roles: [{name: server, image: kv:1, extraArgs: [--cache-type-v=f16]}]
            """);
    assertThat(response.get("allowed").asBoolean()).isFalse();
    assertThat(response.at("/status/message").asText())
        .contains("spec.roles[0].extraArgs[0]")
        .contains(
            "Forbidden: role \"server\" passes --cache-type-v while it attaches a KV cache pool");
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
