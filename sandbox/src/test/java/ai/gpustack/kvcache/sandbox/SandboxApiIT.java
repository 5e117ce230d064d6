package ai.gpustack.kvcache.sandbox;

import static org.assertj.core.api.Assertions.assertThat;

import ai.gpustack.kvcache.spi.EngineRegistry;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.fabric8.kubernetes.api.model.ConfigMapBuilder;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.http.HttpClient;
import io.fabric8.kubernetes.client.http.HttpRequest;
import io.fabric8.kubernetes.client.http.HttpResponse;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * The sandbox's API server answered on the wire, as client-go reads it: Status objects with the API
 * server's reasons and wording, plain-HTTP watches with their query parameters, access reviews,
 * OpenAPI documents, schema validation and Tables.
 */
class SandboxApiIT {
  static final ObjectMapper JSON = new ObjectMapper();
  static final String MD = "/apis/worker.gpustack.ai/v1/namespaces/team-a/modeldeployments";
  static final String MD_BODY =
      """
      {"apiVersion":"worker.gpustack.ai/v1","kind":"ModelDeployment",
       "metadata":{"name":"%s","namespace":"team-a"},
       "spec":{"model":{"name":"m"%s},"engine":{"name":"vLLM"},
               "roles":[{"name":"server","image":"vllm/vllm-openai:v0.11.0"}]}}
      """;

  SandboxServer server;
  KubernetesClient client;
  HttpClient http;

  record Answer(int code, JsonNode body, List<String> warnings) {}

  @BeforeEach
  void start() {
    server = SandboxServer.start(EngineRegistry.load(), 0);
    client = server.client();
    http = client.getHttpClient();
  }

  @AfterEach
  void stop() {
    server.close();
  }

  Answer send(HttpRequest.Builder request) throws Exception {
    HttpResponse<String> response =
        http.sendAsync(request.build(), String.class).get(30, TimeUnit.SECONDS);
    String body = response.body();
    return new Answer(
        response.code(),
        body.isBlank() ? JSON.nullNode() : JSON.readTree(body),
        response.headers("Warning"));
  }

  HttpRequest.Builder at(String path) {
    return http.newHttpRequestBuilder().uri(client.getMasterUrl().toString() + path.substring(1));
  }

  Answer post(String path, String body) throws Exception {
    return send(at(path).post("application/json", body));
  }

  /** A bounded watch's whole stream, one event per line. */
  List<JsonNode> watch(String pathAndQuery) throws Exception {
    HttpResponse<String> response =
        http.sendAsync(at(pathAndQuery).build(), String.class).get(30, TimeUnit.SECONDS);
    assertThat(response.code()).as(response.body()).isEqualTo(200);
    return response.body().lines().filter(l -> !l.isBlank()).map(SandboxApiIT::parse).toList();
  }

  static JsonNode parse(String line) {
    try {
      return JSON.readTree(line);
    } catch (Exception e) {
      throw new AssertionError(line, e);
    }
  }

  @Test
  void a_second_create_is_already_exists_naming_the_object() throws Exception {
    assertThat(post(MD, MD_BODY.formatted("a", "")).code()).isEqualTo(201);
    Answer again = post(MD, MD_BODY.formatted("a", ""));
    assertThat(again.code()).isEqualTo(409);
    assertThat(again.body().path("kind").asText()).isEqualTo("Status");
    assertThat(again.body().path("reason").asText()).isEqualTo("AlreadyExists");
    assertThat(again.body().path("message").asText())
        .isEqualTo("modeldeployments.worker.gpustack.ai \"a\" already exists");
    assertThat(again.body().path("details").path("name").asText()).isEqualTo("a");
    assertThat(again.body().path("details").path("kind").asText()).isEqualTo("modeldeployments");
  }

  @Test
  void a_missing_object_is_not_found_and_a_stale_update_a_conflict() throws Exception {
    Answer missing = send(at(MD + "/nope"));
    assertThat(missing.code()).isEqualTo(404);
    assertThat(missing.body().path("reason").asText()).isEqualTo("NotFound");
    assertThat(missing.body().path("message").asText())
        .isEqualTo("modeldeployments.worker.gpustack.ai \"nope\" not found");
    JsonNode created = post(MD, MD_BODY.formatted("b", "")).body();
    String stale = created.toString().replace("\"resourceVersion\":\"", "\"resourceVersion\":\"1");
    Answer conflict = send(at(MD + "/b").put("application/json", stale));
    assertThat(conflict.code()).isEqualTo(409);
    assertThat(conflict.body().path("reason").asText()).isEqualTo("Conflict");
    assertThat(conflict.body().path("message").asText())
        .contains("the object has been modified; please apply your changes to the latest version");
  }

  @Test
  void unknown_fields_are_refused_when_strict_warned_and_dropped_otherwise() throws Exception {
    String body = MD_BODY.formatted("c", ",\"revision\":\"main\"");
    Answer strict = post(MD + "?fieldValidation=Strict", body);
    assertThat(strict.code()).isEqualTo(400);
    assertThat(strict.body().path("message").asText())
        .endsWith("strict decoding error: unknown field \"spec.model.revision\"");
    Answer warned = post(MD, body);
    assertThat(warned.code()).isEqualTo(201);
    assertThat(warned.warnings())
        .anyMatch(w -> w.contains("unknown field \\\"spec.model.revision\\\""));
    assertThat(warned.body().path("spec").path("model").has("revision")).isFalse();
  }

  @Test
  void a_schema_violation_is_invalid_with_its_causes() throws Exception {
    String body =
        """
        {"apiVersion":"worker.gpustack.ai/v1","kind":"ModelDeployment",
         "metadata":{"name":"d","namespace":"team-a"},
         "spec":{"model":{"name":"m"},"engine":{"name":"vLLM"},
                 "roles":[{"name":"server","image":"i","replicas":"two"}]}}
        """;
    Answer invalid = post(MD, body);
    assertThat(invalid.code()).isEqualTo(422);
    assertThat(invalid.body().path("reason").asText()).isEqualTo("Invalid");
    assertThat(invalid.body().path("details").path("causes").get(0).path("field").asText())
        .isEqualTo("spec.roles[0].replicas");
  }

  @Test
  void a_watch_starts_after_its_resource_version_and_keeps_to_its_field_selector()
      throws Exception {
    client.configMaps().inNamespace("default").resource(configMap("early")).create();
    String from =
        client.configMaps().inNamespace("default").list().getMetadata().getResourceVersion();
    client.configMaps().inNamespace("default").resource(configMap("x")).create();
    client.configMaps().inNamespace("default").resource(configMap("y")).create();
    client
        .configMaps()
        .inNamespace("default")
        .withName("x")
        .edit(
            c -> {
              c.getData().put("k", "2");
              return c;
            });
    List<JsonNode> events =
        watch(
            "/api/v1/namespaces/default/configmaps?watch=true&allowWatchBookmarks=true"
                + "&fieldSelector=metadata.name%3Dx&resourceVersion="
                + from
                + "&timeoutSeconds=1");
    assertThat(events)
        .extracting(
            e ->
                e.path("type").asText()
                    + " "
                    + e.path("object").path("metadata").path("name").asText())
        .containsExactly("ADDED x", "MODIFIED x");
  }

  @Test
  void a_watch_without_a_version_lists_first_and_send_initial_events_ends_with_a_bookmark()
      throws Exception {
    client.configMaps().inNamespace("default").resource(configMap("x")).create();
    assertThat(watch("/api/v1/namespaces/default/configmaps?watch=1&timeoutSeconds=1"))
        .extracting(e -> e.path("type").asText())
        .containsExactly("ADDED");
    List<JsonNode> listed =
        watch(
            "/api/v1/namespaces/default/configmaps?watch=1&sendInitialEvents=true"
                + "&allowWatchBookmarks=true&resourceVersionMatch=NotOlderThan&timeoutSeconds=1");
    assertThat(listed)
        .extracting(e -> e.path("type").asText())
        .containsExactly("ADDED", "BOOKMARK");
    assertThat(
            listed
                .get(1)
                .path("object")
                .path("metadata")
                .path("annotations")
                .path("k8s.io/initial-events-end")
                .asText())
        .isEqualTo("true");
  }

  @Test
  void the_sandbox_user_may_do_everything() throws Exception {
    Answer review =
        post(
            "/apis/authorization.k8s.io/v1/selfsubjectaccessreviews",
            """
            {"apiVersion":"authorization.k8s.io/v1","kind":"SelfSubjectAccessReview",
             "spec":{"resourceAttributes":{"namespace":"team-a","verb":"create",
                     "group":"worker.gpustack.ai","resource":"modeldeployments"}}}
            """);
    assertThat(review.code()).isEqualTo(201);
    assertThat(review.body().path("status").path("allowed").asBoolean()).isTrue();
  }

  @Test
  void openapi_v3_serves_the_crd_schema_with_its_descriptions() throws Exception {
    Answer discovery = send(at("/openapi/v3"));
    String path =
        discovery
            .body()
            .path("paths")
            .path("apis/worker.gpustack.ai/v1")
            .path("serverRelativeURL")
            .asText();
    assertThat(path).startsWith("/openapi/v3/apis/worker.gpustack.ai/v1?hash=");
    Answer document = send(at(path));
    JsonNode md =
        document
            .body()
            .path("components")
            .path("schemas")
            .path("ai.gpustack.worker.v1.ModelDeployment");
    assertThat(md.path("properties").path("spec").path("properties").has("kvCache")).isTrue();
    assertThat(md.path("x-kubernetes-group-version-kind").get(0).path("kind").asText())
        .isEqualTo("ModelDeployment");
    assertThat(
            md.path("properties")
                .path("spec")
                .path("properties")
                .path("kvCache")
                .path("description")
                .asText())
        .isNotBlank();
  }

  @Test
  void core_events_are_tables_with_kubectls_columns() throws Exception {
    post(
        "/api/v1/namespaces/team-a/events",
        """
        {"apiVersion":"v1","kind":"Event","metadata":{"name":"e1","namespace":"team-a"},
         "type":"Warning","reason":"FailedCreate","message":"Error creating: refused",
         "involvedObject":{"kind":"Deployment","name":"web","namespace":"team-a"},
         "source":{"component":"replicaset-controller"},"count":1}
        """);
    Answer table =
        send(
            at("/api/v1/namespaces/team-a/events")
                .header("Accept", "application/json;as=Table;v=v1;g=meta.k8s.io"));
    assertThat(table.body().path("kind").asText()).isEqualTo("Table");
    assertThat(table.body().path("columnDefinitions"))
        .filteredOn(c -> c.path("priority").asInt() == 0)
        .extracting(c -> c.path("name").asText())
        .containsExactly("Last Seen", "Type", "Reason", "Object", "Message");
    JsonNode cells = table.body().path("rows").get(0).path("cells");
    assertThat(List.of(cells.get(1).asText(), cells.get(2).asText(), cells.get(3).asText()))
        .containsExactly("Warning", "FailedCreate", "deployment/web");
  }

  static io.fabric8.kubernetes.api.model.ConfigMap configMap(String name) {
    return new ConfigMapBuilder()
        .withNewMetadata()
        .withName(name)
        .endMetadata()
        .addToData("k", "1")
        .build();
  }
}
