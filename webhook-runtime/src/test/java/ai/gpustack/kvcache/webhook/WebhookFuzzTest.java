package ai.gpustack.kvcache.webhook;

import static org.assertj.core.api.Assertions.assertThat;

import ai.gpustack.kvcache.admission.Admission;
import ai.gpustack.kvcache.admission.AdmissionException;
import ai.gpustack.kvcache.admission.Route;
import ai.gpustack.kvcache.cluster.MemoryClusterView;
import ai.gpustack.kvcache.spi.EngineRegistry;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import com.fasterxml.jackson.databind.node.ObjectNode;
import com.fasterxml.jackson.dataformat.yaml.YAMLFactory;
import io.micrometer.prometheusmetrics.PrometheusConfig;
import io.micrometer.prometheusmetrics.PrometheusMeterRegistry;
import java.net.InetSocketAddress;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Throws generated and mutated AdmissionReview bodies at the HTTPS endpoint: it never answers 5xx,
 * never allows what the rule refuses in-process, answers every body within the client timeout, and
 * the rules themselves never throw on malformed input (a throw is a bug, answered 500).
 */
class WebhookFuzzTest {
  private static final ObjectMapper JSON = new ObjectMapper();
  // -Dkvcache.fuzz.bodies=N for a longer run than the default build affords.
  private static final int BODIES = Integer.getInteger("kvcache.fuzz.bodies", 400);

  @TempDir Path dir;

  @Test
  void mutated_reviews_are_answered_safely() throws Exception {
    List<JsonNode> seeds = seeds();
    Admission admission =
        new Admission(EngineRegistry.load(), MemoryClusterView.of(WebhookServerTest.cluster()));
    TestCertificates.Pair pair = TestCertificates.write(dir, "fuzz", "EC");
    Random random = new Random(20261130);
    int allowedCount = 0;
    int deniedCount = 0;
    int rejectedCount = 0;
    try (WebhookServer server =
        WebhookServer.builder()
            .address(new InetSocketAddress("127.0.0.1", 0))
            .keys(new ReloadingKeyManager(pair.cert(), pair.key()))
            .admission(admission)
            .meterRegistry(new PrometheusMeterRegistry(PrometheusConfig.DEFAULT))
            .start()) {
      HttpClient client = TestCertificates.client(List.of(pair.certificate()));
      for (int i = 0; i < BODIES; i++) {
        JsonNode seed = seeds.get(random.nextInt(seeds.size())).deepCopy();
        JsonNode request = seed.get("request");
        // Mostly the handler an API server would call, sometimes any other.
        Route route =
            random.nextInt(7) == 0
                ? Route.values()[random.nextInt(Route.values().length)]
                : Route.forKind(
                        request.get("kind").get("kind").asText(), request.get("operation").asText())
                    .orElse(Route.POD_FREEZE);
        String body =
            random.nextInt(10) == 0
                ? truncate(seed.toString(), random)
                : mutate(seed, random, 1 + random.nextInt(3)).toString();
        HttpResponse<String> r =
            client.send(
                HttpRequest.newBuilder(
                        URI.create(
                            "https://localhost:" + server.address().getPort() + route.path()))
                    .timeout(Duration.ofSeconds(10))
                    .header("Content-Type", "application/json")
                    .POST(HttpRequest.BodyPublishers.ofString(body))
                    .build(),
                HttpResponse.BodyHandlers.ofString());
        assertThat(r.statusCode()).as("status for %s", body).isLessThan(500);
        Expected expected = inProcess(admission, route, body);
        if (expected.status != 200) {
          assertThat(r.statusCode()).as(body).isEqualTo(expected.status);
          assertThat(r.body()).hasLineCount(1);
          rejectedCount++;
          continue;
        }
        assertThat(r.statusCode()).as(body).isEqualTo(200);
        JsonNode response = JSON.readTree(r.body()).get("response");
        assertThat(response.get("uid").asText())
            .isEqualTo(JSON.readTree(body).path("request").path("uid").asText());
        assertThat(response.get("allowed").asBoolean()).as(body).isEqualTo(expected.allowed);
        if (expected.allowed) {
          allowedCount++;
        } else {
          deniedCount++;
        }
      }
    }
    System.out.printf(
        "fuzz: %d bodies, %d allowed, %d denied, %d rejected with 4xx%n",
        BODIES, allowedCount, deniedCount, rejectedCount);
    assertThat(allowedCount + deniedCount).isGreaterThan(BODIES / 5);
  }

  private record Expected(int status, boolean allowed) {}

  private static Expected inProcess(Admission admission, Route route, String body) {
    JsonNode review;
    try {
      review = JSON.readTree(body);
    } catch (Exception e) {
      return new Expected(400, false);
    }
    try {
      JsonNode answer = admission.review(route, review);
      return new Expected(200, answer.get("response").get("allowed").asBoolean());
    } catch (AdmissionException e) {
      return new Expected(e.status(), false);
    }
  }

  /** Every request of the admission fixtures, as reviews. */
  private static List<JsonNode> seeds() throws Exception {
    ObjectMapper yaml = new ObjectMapper(new YAMLFactory());
    Path fixtures = Path.of(WebhookFuzzTest.class.getResource("/admission").toURI());
    List<JsonNode> seeds = new ArrayList<>();
    try (Stream<Path> files = Files.list(fixtures)) {
      for (Path f : files.filter(p -> !p.getFileName().toString().equals("base.yaml")).toList()) {
        for (JsonNode c : yaml.readTree(f.toFile()).path("cases")) {
          seeds.add(JSON.readTree(review(c.get("request")).toString()));
        }
      }
    }
    return seeds;
  }

  private static JsonNode review(JsonNode request) {
    ObjectNode review = JSON.createObjectNode();
    review.put("apiVersion", "admission.k8s.io/v1").put("kind", "AdmissionReview");
    ObjectNode r = review.putObject("request");
    r.put("uid", "fuzz-" + Integer.toHexString(request.hashCode()));
    JsonNode object = request.has("object") ? request.get("object") : request.get("oldObject");
    r.putObject("kind").put("kind", object.path("kind").asText());
    r.put("operation", request.path("operation").asText("CREATE"));
    r.put("namespace", object.path("metadata").path("namespace").asText("default"));
    if (request.has("object")) {
      r.set("object", request.get("object"));
    }
    if (request.has("oldObject")) {
      r.set("oldObject", request.get("oldObject"));
    }
    return review;
  }

  private static String truncate(String s, Random random) {
    return s.substring(0, random.nextInt(Math.max(1, s.length())));
  }

  /** Replaces, removes or retypes {@code times} random nodes. */
  private static JsonNode mutate(JsonNode root, Random random, int times) {
    for (int t = 0; t < times; t++) {
      List<JsonNode> containers = new ArrayList<>();
      collect(root, containers);
      JsonNode target = containers.get(random.nextInt(containers.size()));
      if (target instanceof ObjectNode o && o.size() > 0) {
        List<String> names = new ArrayList<>();
        o.fieldNames().forEachRemaining(names::add);
        String name = names.get(random.nextInt(names.size()));
        if (random.nextInt(3) == 0) {
          o.remove(name);
        } else {
          o.set(name, junk(random));
        }
      } else if (target instanceof ArrayNode a && a.size() > 0) {
        int i = random.nextInt(a.size());
        if (random.nextBoolean()) {
          a.remove(i);
        } else {
          a.set(i, junk(random));
        }
      }
    }
    return root;
  }

  private static void collect(JsonNode node, List<JsonNode> out) {
    if (node.isContainerNode()) {
      out.add(node);
      node.forEach(child -> collect(child, out));
    }
  }

  private static JsonNode junk(Random random) {
    JsonNodeFactory f = JsonNodeFactory.instance;
    return switch (random.nextInt(9)) {
      case 0 -> f.nullNode();
      case 1 -> f.numberNode(random.nextInt() - 5);
      case 2 -> f.textNode("");
      case 3 -> f.textNode("--kv-cache-dtype");
      case 4 ->
          f.textNode(
              new String(
                  new byte[] {(byte) random.nextInt(128), '\n', '"'}, StandardCharsets.ISO_8859_1));
      case 5 -> f.arrayNode().add("x").add(1);
      case 6 -> f.objectNode().put("x", "y");
      case 7 -> f.booleanNode(random.nextBoolean());
      default -> f.textNode("x".repeat(random.nextInt(300)));
    };
  }
}
