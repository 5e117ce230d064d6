package ai.gpustack.kvcache.admission;

import static org.assertj.core.api.Assertions.assertThat;

import ai.gpustack.kvcache.cluster.MemoryClusterView;
import ai.gpustack.kvcache.resources.KvCacheSerialization;
import ai.gpustack.kvcache.spi.EngineRegistry;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import com.fasterxml.jackson.dataformat.yaml.YAMLFactory;
import io.fabric8.kubernetes.api.model.HasMetadata;
import io.fabric8.kubernetes.client.utils.KubernetesSerialization;
import io.fabric8.zjsonpatch.JsonPatch;
import java.io.IOException;
import java.net.URISyntaxException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Base64;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.stream.Stream;
import org.junit.jupiter.api.DynamicTest;
import org.junit.jupiter.api.TestFactory;

/**
 * Runs every admission fixture under {@code src/test/resources/admission/}: each YAML file holds
 * cases of cluster state (over {@code base.yaml}), a request, and the verdict, messages, warnings
 * and patched fields expected. Field values under {@code expect.patched} are JSON pointers into the
 * patched object.
 */
class AdmissionFixturesTest {
  private static final ObjectMapper YAML = new ObjectMapper(new YAMLFactory());
  private static final KubernetesSerialization SERIALIZATION = KvCacheSerialization.create();
  private static final EngineRegistry ENGINES = EngineRegistry.load();

  @TestFactory
  Stream<DynamicTest> fixtures() throws IOException, URISyntaxException {
    Path dir = Path.of(getClass().getResource("/admission").toURI());
    JsonNode base = YAML.readTree(dir.resolve("base.yaml").toFile());
    List<DynamicTest> tests = new ArrayList<>();
    try (Stream<Path> files = Files.list(dir)) {
      for (Path file :
          files.filter(f -> !f.getFileName().toString().equals("base.yaml")).sorted().toList()) {
        for (JsonNode c : YAML.readTree(file.toFile()).path("cases")) {
          String name = file.getFileName() + ": " + c.path("name").asText();
          tests.add(DynamicTest.dynamicTest(name, () -> run(base, c)));
        }
      }
    }
    return tests.stream();
  }

  static List<HasMetadata> cluster(JsonNode base, JsonNode c) throws IOException {
    Map<String, JsonNode> objects = new LinkedHashMap<>();
    List<JsonNode> all = new ArrayList<>();
    base.path("cluster").forEach(all::add);
    c.path("cluster").forEach(all::add);
    for (JsonNode o : all) {
      String key =
          o.path("kind").asText()
              + "/"
              + o.path("metadata").path("namespace").asText()
              + "/"
              + o.path("metadata").path("name").asText();
      if (o.path("absent").asBoolean(false)) {
        objects.remove(key);
      } else {
        objects.put(key, o);
      }
    }
    c.path("settings")
        .properties()
        .forEach(
            s -> {
              ObjectNode setting = YAML.createObjectNode();
              setting.put("apiVersion", "gpustack.ai/v1").put("kind", "Setting");
              setting
                  .putObject("metadata")
                  .put("name", s.getKey())
                  .put("namespace", "gpustack-system");
              setting.putObject("spec").put("value", s.getValue().asText());
              objects.put("Setting//" + s.getKey(), setting);
            });
    List<HasMetadata> out = new ArrayList<>();
    for (JsonNode o : objects.values()) {
      out.add(SERIALIZATION.unmarshal(o.toString()));
    }
    return out;
  }

  static JsonNode review(JsonNode request) {
    ObjectNode review = YAML.createObjectNode();
    review.put("apiVersion", "admission.k8s.io/v1").put("kind", "AdmissionReview");
    ObjectNode r = review.putObject("request");
    r.put("uid", "uid-1");
    JsonNode object = request.has("object") ? request.get("object") : request.get("oldObject");
    String kind = object.path("kind").asText();
    r.putObject("kind").put("kind", kind);
    r.put("operation", request.path("operation").asText("CREATE"));
    r.put("namespace", object.path("metadata").path("namespace").asText("default"));
    r.put("name", object.path("metadata").path("name").asText(""));
    if (request.has("object")) {
      r.set("object", request.get("object"));
    }
    if (request.has("oldObject")) {
      r.set("oldObject", request.get("oldObject"));
    }
    return review;
  }

  private static void run(JsonNode base, JsonNode c) throws IOException {
    Admission admission = new Admission(ENGINES, MemoryClusterView.of(cluster(base, c)));
    JsonNode review = review(c.get("request"));
    JsonNode req = review.get("request");
    String kind = req.get("kind").get("kind").asText();
    Route route =
        Route.forKind(kind, req.get("operation").asText())
            .orElseGet(
                () ->
                    Arrays.stream(Route.values())
                        .filter(h -> h.kind().equals(kind))
                        .findFirst()
                        .orElseThrow());
    JsonNode response = admission.review(route, review).get("response");
    JsonNode expect = c.get("expect");
    String message = response.path("status").path("message").asText("");
    assertThat(response.get("uid").asText()).isEqualTo("uid-1");
    assertThat(response.get("allowed").asBoolean())
        .as("allowed; message: %s", message)
        .isEqualTo(expect.path("allowed").asBoolean());
    if (expect.has("code")) {
      assertThat(response.path("status").path("code").asInt())
          .isEqualTo(expect.get("code").asInt());
    }
    for (JsonNode s : expect.path("messageContains")) {
      assertThat(message).contains(s.asText());
    }
    for (JsonNode s : expect.path("messageExcludes")) {
      assertThat(message).doesNotContain(s.asText());
    }
    if (expect.has("problems")) {
      assertThat(countProblems(message)).as(message).isEqualTo(expect.get("problems").asInt());
    }
    List<String> warnings = new ArrayList<>();
    response.path("warnings").forEach(w -> warnings.add(w.asText()));
    for (JsonNode s : expect.path("warningsContain")) {
      assertThat(warnings).anySatisfy(w -> assertThat(w).contains(s.asText()));
    }
    if (expect.path("noWarnings").asBoolean(false)) {
      assertThat(warnings).isEmpty();
    }
    boolean patchExpected = expect.path("patch").asBoolean(expect.has("patched"));
    assertThat(response.has("patch")).as("patch present").isEqualTo(patchExpected);
    if (response.has("patch")) {
      JsonNode patch = YAML.readTree(Base64.getDecoder().decode(response.get("patch").asText()));
      for (JsonNode op : patch) {
        assertThat(op.get("path").asText())
            .matches("/spec/containers/\\d+/.*|/spec/volumes.*|/metadata/annotations.*");
      }
      JsonNode patched = JsonPatch.apply(patch, c.get("request").get("object"));
      expect
          .path("patched")
          .properties()
          .forEach(
              f -> {
                JsonNode actual = patched.at(f.getKey());
                if (f.getValue().isTextual() && f.getValue().asText().startsWith("~")) {
                  assertThat(actual.asText())
                      .as(f.getKey())
                      .contains(f.getValue().asText().substring(1));
                } else {
                  assertThat(actual).as(f.getKey()).isEqualTo(f.getValue());
                }
              });
      for (JsonNode unchanged : expect.path("unchanged")) {
        assertThat(patched.at(unchanged.asText()))
            .as(unchanged.asText())
            .isEqualTo(c.get("request").get("object").at(unchanged.asText()));
      }
    }
  }

  /** Problems in an "X is invalid: [a, b]" message: one per field path. */
  private static int countProblems(String message) {
    return (int)
            java.util.regex.Pattern.compile("(?:\\[|, )(?:spec|metadata)\\.[^:]*: ")
                .matcher(message)
                .results()
                .count()
        + (message.contains("is invalid: [") ? 0 : message.contains(" is invalid: ") ? 1 : 0);
  }
}
