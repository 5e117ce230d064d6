package ai.gpustack.kvcache.admission;

import static org.assertj.core.api.Assertions.assertThat;

import ai.gpustack.kvcache.api.Problem;
import ai.gpustack.kvcache.cluster.MemoryClusterView;
import ai.gpustack.kvcache.resources.KvCacheSerialization;
import ai.gpustack.kvcache.spi.EngineRegistry;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.fabric8.zjsonpatch.JsonPatch;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;

/**
 * Properties of every admission rule over generated valid and near-valid objects (ModelDeployments
 * and Pods asking for injection, built from the spellings the rules care about): a refused object
 * is never patched, an injected Pod's last two {@code args} are the Binding's pair, every denial
 * names a field path that exists in the object (or, for a field that is missing, whose parent
 * does), and no rule throws. {@code -Dkvcache.properties.tries=N} (the fuzz profile runs 100,000)
 * for a longer run.
 */
class AdmissionPropertiesTest {
  static final int TRIES = Integer.getInteger("kvcache.properties.tries", 2_000);
  static final ObjectMapper JSON = new ObjectMapper();
  static final long SEED = Long.getLong("kvcache.properties.seed", 20261202L);

  static final List<String> TOKENS =
      List.of(
          "--kv-cache-dtype",
          "--kv-cache-dtype=fp8",
          "--kv_cache_dtype",
          "--kv-cache-dt",
          "--kv-cache",
          "--kv-cache-dtype-skip-layers",
          "fp8",
          "bfloat16",
          "--max-model-len=8192",
          "--kv-transfer-config",
          "{}",
          "--hicache-storage-backend",
          "mooncake",
          "--port",
          "8000",
          "-c",
          "serve",
          "m",
          "");

  static final List<String> BINDINGS = List.of("cache", "legacy", "missing");

  static final MemoryClusterView CLUSTER =
      MemoryClusterView.of(
          KvCacheSerialization.create()
              .unmarshal(
                  "{\"apiVersion\":\"worker.gpustack.ai/v1\",\"kind\":\"KVCachePool\",\"metadata\":{\"name\":\"pool-a\"},"
                      + "\"spec\":{\"backends\":[\"mooncake\"],\"quota\":{\"total\":\"1Ti\"}},\"status\":{\"clientEndpoint\":\"master:50051\"}}"),
          KvCacheSerialization.create()
              .unmarshal(
                  "{\"apiVersion\":\"worker.gpustack.ai/v1\",\"kind\":\"KVCachePoolBinding\",\"metadata\":{\"name\":\"cache\",\"namespace\":\"team-a\"},"
                      + "\"spec\":{\"poolRef\":{\"name\":\"pool-a\"},\"domain\":{\"name\":\"team-a\",\"blockSize\":16,\"dtype\":\"bfloat16\"},\"quota\":{\"ceiling\":\"1Gi\"}}}"),
          KvCacheSerialization.create()
              .unmarshal(
                  "{\"apiVersion\":\"worker.gpustack.ai/v1\",\"kind\":\"KVCachePoolBinding\",\"metadata\":{\"name\":\"legacy\",\"namespace\":\"team-a\"},"
                      + "\"spec\":{\"poolRef\":{\"name\":\"pool-a\"},\"domain\":{\"name\":\"legacy\",\"blockSize\":16,\"dtype\":\"bf16\"},\"quota\":{\"ceiling\":\"1Gi\"}}}"));

  static final EngineRegistry ENGINES = EngineRegistry.load();
  final Admission admission = new Admission(ENGINES, CLUSTER);

  @Test
  void generated_pods_are_patched_only_when_allowed_and_end_with_the_bindings_pair()
      throws Exception {
    Random random = new Random(SEED);
    int injected = 0;
    int refused = 0;
    for (int i = 0; i < TRIES; i++) {
      ObjectNode pod = pod(random);
      Decision decision = decide(Route.POD_INJECTION, pod);
      if (!decision.allowed()) {
        refused++;
        assertThat(decision.patch()).as("a refused Pod is patched: %s", pod).isEmpty();
        assertPathsExist(decision, pod);
        continue;
      }
      if (decision.patch().isPresent()) {
        injected++;
        // The webhook reuses what it serialized for earlier Pods of the same attachment: the
        // answer is the one a webhook that never saw another Pod gives.
        assertThat(decision.patch().get().toString())
            .as("%s", pod)
            .isEqualTo(
                decide(new Admission(ENGINES, CLUSTER), Route.POD_INJECTION, pod)
                    .patch()
                    .orElseThrow()
                    .toString());
        JsonNode patched = JsonPatch.apply(JSON.readTree(decision.patch().get().json()), pod);
        JsonNode container = target(patched);
        ArrayNode args = (ArrayNode) container.path("args");
        String dtype =
            pod.path("metadata")
                    .path("annotations")
                    .path("kvcache.gpustack.ai/binding")
                    .asText()
                    .equals("cache")
                ? "bfloat16"
                : "bf16";
        assertThat(args.get(args.size() - 2).asText())
            .as("%s", patched)
            .isEqualTo("--kv-cache-dtype");
        assertThat(args.get(args.size() - 1).asText()).as("%s", patched).isEqualTo(dtype);
      }
    }
    // The generator reaches both outcomes, or it tests nothing.
    assertThat(injected).isPositive();
    assertThat(refused).isPositive();
  }

  @Test
  void generated_deployments_are_refused_naming_fields_that_exist() {
    Random random = new Random(SEED + 1);
    int refused = 0;
    int allowed = 0;
    for (int i = 0; i < TRIES; i++) {
      ObjectNode md = deployment(random);
      Decision decision = decide(Route.MODEL_DEPLOYMENT, md);
      assertThat(decision.patch()).isEmpty();
      if (decision.allowed()) {
        allowed++;
      } else {
        refused++;
        assertPathsExist(decision, md);
      }
    }
    assertThat(allowed).isPositive();
    assertThat(refused).isPositive();
  }

  private Decision decide(Route route, ObjectNode object) {
    return decide(admission, route, object);
  }

  private static Decision decide(Admission admission, Route route, ObjectNode object) {
    return admission.decide(
        route,
        new Request(
            "uid",
            object.path("kind").asText(),
            "CREATE",
            "team-a",
            object.path("metadata").path("name").asText(),
            object,
            null));
  }

  private static void assertPathsExist(Decision decision, JsonNode object) {
    for (Problem problem : decision.problems()) {
      // A missing field (a required value, an absent command) is named where it should be: its
      // parent is what exists.
      String field =
          resolve(object, problem.field()) != null
              ? problem.field()
              : problem.field().replaceAll("(\\.[^.\\[]+|\\[[^\\]]*\\])$", "");
      assertThat(resolve(object, field))
          .as("%s names %s, which %s does not have", decision.message(), problem.field(), object)
          .isNotNull();
    }
  }

  private static final Pattern SEGMENT = Pattern.compile("([^.\\[]+)|\\[([^\\]]*)\\]");

  /** The node at a Kubernetes field path ({@code spec.roles[0].extraArgs[1]}), or null. */
  static JsonNode resolve(JsonNode root, String path) {
    JsonNode node = root;
    Matcher m = SEGMENT.matcher(path);
    while (m.find()) {
      if (m.group(1) != null) {
        node = node.get(m.group(1));
      } else {
        String key = m.group(2);
        node =
            key.matches("\\d+") && node.isArray() ? node.get(Integer.parseInt(key)) : node.get(key);
      }
      if (node == null) {
        return null;
      }
    }
    return node;
  }

  private static JsonNode target(JsonNode pod) {
    String name =
        pod.path("metadata").path("annotations").path("kvcache.gpustack.ai/container").asText("");
    for (JsonNode c : pod.path("spec").path("containers")) {
      if (name.isEmpty() || c.path("name").asText().equals(name)) {
        return c;
      }
    }
    return pod.path("spec").path("containers").get(0);
  }

  private static <T> T pick(Random random, List<T> from) {
    return from.get(random.nextInt(from.size()));
  }

  private static ArrayNode tokens(Random random, int max) {
    ArrayNode out = JSON.createArrayNode();
    int n = random.nextInt(max + 1);
    for (int i = 0; i < n; i++) {
      out.add(pick(random, TOKENS));
    }
    return out;
  }

  static ObjectNode pod(Random random) {
    ObjectNode pod = JSON.createObjectNode().put("apiVersion", "v1").put("kind", "Pod");
    ObjectNode meta =
        pod.putObject("metadata")
            .put("name", "p" + random.nextInt(1000))
            .put("namespace", "team-a");
    meta.putObject("labels").put("kvcache.gpustack.ai/inject", "true");
    ObjectNode annotations = meta.putObject("annotations");
    if (random.nextInt(10) > 0) {
      annotations.put("kvcache.gpustack.ai/binding", pick(random, BINDINGS));
    }
    if (random.nextInt(10) > 0) {
      annotations.put(
          "kvcache.gpustack.ai/engine", pick(random, List.of("vLLM", "SGLang", "sglang", "trt")));
    }
    if (random.nextInt(4) == 0) {
      annotations.put(
          "kvcache.gpustack.ai/engine-version",
          pick(random, List.of("0.4.2", "0.11.0", "0.5.18", "x")));
    }
    if (random.nextInt(20) == 0) {
      annotations.put("kvcache.gpustack.ai/unknown", "1");
    }
    int containers = 1 + random.nextInt(2);
    ArrayNode list = pod.putObject("spec").putArray("containers");
    for (int c = 0; c < containers; c++) {
      ObjectNode container = list.addObject().put("name", "c" + c).put("image", "img");
      if (random.nextInt(8) > 0) {
        ArrayNode command = container.putArray("command");
        command.add(pick(random, List.of("vllm", "python3", "sh", "/run.sh")));
        if (command.get(0).asText().equals("python3")) {
          command.add("-m").add("sglang.launch_server");
        }
      }
      if (random.nextInt(8) > 0) {
        ArrayNode args = container.putArray("args");
        args.add("serve");
        args.addAll(tokens(random, 4));
      }
    }
    if (containers > 1 && random.nextInt(3) > 0) {
      annotations.put("kvcache.gpustack.ai/container", "c" + random.nextInt(containers));
    }
    return pod;
  }

  static ObjectNode deployment(Random random) {
    ObjectNode md =
        JSON.createObjectNode()
            .put("apiVersion", "worker.gpustack.ai/v1")
            .put("kind", "ModelDeployment");
    md.putObject("metadata").put("name", "md" + random.nextInt(1000)).put("namespace", "team-a");
    ObjectNode spec = md.putObject("spec");
    spec.putObject("model").put("name", "m");
    ObjectNode engine =
        spec.putObject("engine").put("name", pick(random, List.of("vLLM", "SGLang", "nope")));
    if (random.nextBoolean()) {
      engine.put("version", pick(random, List.of("0.4.2", "0.11.0", "0.5.18")));
    }
    if (random.nextInt(4) > 0) {
      spec.putObject("kvCache").putObject("poolRef").put("name", pick(random, BINDINGS));
    }
    ArrayNode roles = spec.putArray("roles");
    int n = 1 + random.nextInt(3);
    for (int r = 0; r < n; r++) {
      ObjectNode role =
          roles
              .addObject()
              .put("name", pick(random, List.of("server", "prefill", "Bad_Name", "server")));
      if (random.nextInt(5) == 0) {
        role.putArray("command").add("vllm").add("serve").add("m");
      }
      role.set("extraArgs", tokens(random, 3));
      if (random.nextInt(6) == 0) {
        role.putArray("env")
            .addObject()
            .put(
                "name",
                pick(random, List.of("MOONCAKE_CONFIG_PATH", "MOONCAKE_TENANT_ID", "HF_HOME")))
            .put("value", "x");
      }
    }
    return md;
  }

  @Test
  void pods_of_one_attachment_launched_differently_each_record_their_own_launch() throws Exception {
    List<String> records = new ArrayList<>();
    for (String command :
        List.of(
            "[\"vllm\",\"serve\",\"m\"]",
            "[\"python3\",\"-m\",\"vllm.entrypoints.openai.api_server\",\"--model\",\"m\"]",
            "[\"vllm\",\"serve\",\"m\"]")) {
      ObjectNode pod =
          (ObjectNode)
              JSON.readTree(
                  "{\"apiVersion\":\"v1\",\"kind\":\"Pod\",\"metadata\":{\"name\":\"p\","
                      + "\"labels\":{\"kvcache.gpustack.ai/inject\":\"true\"},\"annotations\":"
                      + "{\"kvcache.gpustack.ai/binding\":\"cache\",\"kvcache.gpustack.ai/engine\":\"vLLM\"}},"
                      + "\"spec\":{\"containers\":[{\"name\":\"main\",\"command\":"
                      + command
                      + "}]}}");
      String patch = decide(Route.POD_INJECTION, pod).patch().orElseThrow().toString();
      assertThat(patch)
          .isEqualTo(
              decide(new Admission(ENGINES, CLUSTER), Route.POD_INJECTION, pod)
                  .patch()
                  .orElseThrow()
                  .toString());
      JsonNode patched = JsonPatch.apply(JSON.readTree(patch), pod);
      records.add(
          patched
              .path("metadata")
              .path("annotations")
              .path("kvcache.gpustack.ai/injected")
              .asText());
    }
    assertThat(records.get(0)).isEqualTo(records.get(2)).isNotEqualTo(records.get(1));
  }

  @Test
  void field_paths_resolve_as_kubernetes_writes_them() throws Exception {
    JsonNode o =
        JSON.readTree(
            "{\"metadata\":{\"annotations\":{\"kvcache.gpustack.ai/binding\":\"b\"}},"
                + "\"spec\":{\"roles\":[{\"extraArgs\":[\"a\",\"b\"]}]}}");
    assertThat(resolve(o, "spec.roles[0].extraArgs[1]").asText()).isEqualTo("b");
    assertThat(resolve(o, "metadata.annotations[kvcache.gpustack.ai/binding]").asText())
        .isEqualTo("b");
    assertThat(resolve(o, "spec.roles[1]")).isNull();
    List<String> none = new ArrayList<>();
    assertThat(none).isEmpty();
  }
}
