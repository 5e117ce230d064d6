package ai.gpustack.kvcache.sandbox;

import ai.gpustack.kvcache.resources.KvCacheSerialization;
import ai.gpustack.kvcache.spi.EngineRegistry;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.fabric8.kubernetes.client.server.mock.KubernetesCrudDispatcher;
import io.fabric8.kubernetes.client.utils.KubernetesSerialization;
import io.fabric8.mockwebserver.dsl.HttpMethod;
import io.fabric8.mockwebserver.http.Buffer;
import io.fabric8.mockwebserver.http.Dispatcher;
import io.fabric8.mockwebserver.http.MockResponse;
import io.fabric8.mockwebserver.http.RecordedRequest;
import io.fabric8.zjsonpatch.JsonPatch;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.util.Optional;
import java.util.function.Consumer;

/**
 * The embedded API server's front: discovery, server-side tables, self-subject reviews, and the
 * admission chain in front of every create, update and patch; everything else goes to fabric8's
 * CRUD dispatcher unchanged.
 */
final class SandboxDispatcher extends Dispatcher {
  private static final ObjectMapper JSON = new ObjectMapper();

  private final KubernetesCrudDispatcher crud;
  private final ResourceCatalog catalog;
  private final AdmissionChain chain;
  private final KubernetesSerialization serialization = KvCacheSerialization.create();
  private final Consumer<String> refusals;
  private volatile String serverAddress = "127.0.0.1";
  private volatile boolean admission = true;
  private final Object writes = new Object();
  private volatile Consumer<RecordedRequest> recorder = r -> {};

  SandboxDispatcher(
      KubernetesCrudDispatcher crud,
      ResourceCatalog catalog,
      EngineRegistry engines,
      Consumer<String> refusals) {
    this.crud = crud;
    this.catalog = catalog;
    this.chain = new AdmissionChain(engines);
    this.refusals = refusals;
  }

  void serverAddress(String address) {
    this.serverAddress = address;
  }

  /** Turns the admission chain on or off, as when a webhook is not (yet) registered. */
  void admission(boolean on) {
    this.admission = on;
  }

  /** Hands every request to {@code recorder} first (an audit log, for tests of permissions). */
  void record(Consumer<RecordedRequest> recorder) {
    this.recorder = recorder;
  }

  @Override
  public MockResponse dispatch(RecordedRequest request) {
    recorder.accept(request);
    if (request.method() == HttpMethod.GET) {
      return serve(request);
    }
    // One write at a time: a merge patch reads the stored object and writes its result, and a
    // PUT is checked against the stored resourceVersion; both must see no write in between.
    synchronized (writes) {
      return serve(request);
    }
  }

  private MockResponse serve(RecordedRequest request) {
    String path = request.getPath();
    String bare = path.contains("?") ? path.substring(0, path.indexOf('?')) : path;
    HttpMethod method = request.method();
    try {
      if (method == HttpMethod.GET) {
        switch (bare) {
          case "/version" -> {
            return json(
                200,
                JSON.createObjectNode()
                    .put("major", "1")
                    .put("minor", "32")
                    .put("gitVersion", "v1.32.0-kvcache-sandbox")
                    .put("platform", "linux/amd64"));
          }
          case "/api" -> {
            return json(200, catalog.apiVersions(serverAddress));
          }
          case "/apis" -> {
            return json(200, catalog.groups());
          }
          default -> {
            Optional<JsonNode> resources = groupVersion(bare);
            if (resources.isPresent()) {
              return json(200, resources.get());
            }
          }
        }
      }
      if (method == HttpMethod.POST && bare.endsWith("/selfsubjectrulesreviews")) {
        ObjectNode review =
            JSON.createObjectNode()
                .put("apiVersion", "authorization.k8s.io/v1")
                .put("kind", "SelfSubjectRulesReview");
        ObjectNode status = review.putObject("status").put("incomplete", false);
        ObjectNode rule = status.putArray("resourceRules").addObject();
        rule.putArray("apiGroups").add("*");
        rule.putArray("resources").add("*");
        rule.putArray("verbs").add("*");
        status.putArray("nonResourceRules");
        return json(201, review);
      }
      if (method == HttpMethod.POST && bare.endsWith("/selfsubjectaccessreviews")) {
        ObjectNode review = (ObjectNode) JSON.readTree(request.getBody().getBytes());
        review.putObject("status").put("allowed", true);
        return json(201, review);
      }
      Optional<ApiPath> api = ApiPath.parse(path);
      String type = header(request, "Content-Type");
      if (method == HttpMethod.PATCH
          && (type.contains("merge-patch") || type.contains("json-patch"))) {
        Optional<RecordedRequest> put = patchAsPut(request);
        if (put.isEmpty()) {
          return status(404, "NotFound", "no object at " + bare);
        }
        request = put.get();
        method = HttpMethod.PUT;
      } else if (method == HttpMethod.PUT && api.isPresent()) {
        Optional<MockResponse> conflict = staleWrite(request, api.get());
        if (conflict.isPresent()) {
          return conflict.get();
        }
      }
      boolean write =
          method == HttpMethod.POST || method == HttpMethod.PUT || method == HttpMethod.PATCH;
      if (admission && write && api.isPresent() && api.get().subresource().isEmpty()) {
        return admitted(request, api.get());
      }
      MockResponse response = crud.dispatch(request);
      if (api.isPresent()
          && method == HttpMethod.GET
          && header(request, "Accept").contains("as=Table")
          && response.code() == 200
          && !path.contains("watch=")) {
        Optional<ResourceCatalog.Resource> resource =
            catalog.find(api.get().group(), api.get().plural());
        if (resource.isPresent()) {
          return json(
              200, Tables.table(resource.get(), JSON.readTree(response.getBody().getBytes())));
        }
      }
      return response;
    } catch (io.fabric8.zjsonpatch.JsonPatchException e) {
      return status(422, "Invalid", "the patch does not apply: " + e.getMessage());
    } catch (IOException | RuntimeException e) {
      return status(500, "InternalError", "the sandbox API server failed: " + e);
    }
  }

  /**
   * A request header by name, ignoring case (HTTP/2 clients send lowercase names); "" when absent.
   */
  private static String header(RecordedRequest request, String name) {
    return request.getHeaders().toMultimap().entrySet().stream()
        .filter(e -> e.getKey().equalsIgnoreCase(name))
        .flatMap(e -> e.getValue().stream())
        .findFirst()
        .orElse("");
  }

  private Optional<JsonNode> groupVersion(String path) {
    String[] s = path.replaceAll("^/+|/+$", "").split("/");
    if (s.length == 2 && s[0].equals("api")) {
      return catalog.resources("", s[1]);
    }
    if (s.length == 3 && s[0].equals("apis")) {
      return catalog.resources(s[1], s[2]);
    }
    return Optional.empty();
  }

  /** A write through the admission chain; refused writes are not stored. */
  private MockResponse admitted(RecordedRequest request, ApiPath api) throws IOException {
    Optional<ResourceCatalog.Resource> resource = catalog.find(api.group(), api.plural());
    if (resource.isEmpty()) {
      return crud.dispatch(request);
    }
    String kind = resource.get().kind();
    JsonNode object;
    JsonNode old = null;
    String operation;
    switch (request.method()) {
      case POST -> {
        operation = "CREATE";
        object = JSON.readTree(request.getBody().getBytes());
        if (object.isObject()
            && api.namespace().isPresent()
            && !object.path("metadata").has("namespace")) {
          ((ObjectNode) object).withObject("metadata").put("namespace", api.namespace().get());
        }
      }
      case PUT -> {
        operation = "UPDATE";
        object = JSON.readTree(request.getBody().getBytes());
        old = current(request.getPath());
      }
      default -> {
        operation = "UPDATE";
        old = current(request.getPath());
        if (old == null) {
          return crud.dispatch(request);
        }
        object = patched(old, request);
      }
    }
    AdmissionChain.Outcome outcome =
        chain.admit(
            new StoreClusterView(crud.getMap(), serialization), operation, api, kind, object, old);
    if (!outcome.allowed()) {
      refusals.accept(outcome.message());
      return status(
          outcome.code(), outcome.code() == 400 ? "BadRequest" : "Forbidden", outcome.message());
    }
    RecordedRequest forwarded = request;
    if (request.method() == HttpMethod.POST && !outcome.object().equals(object)) {
      forwarded =
          new RecordedRequest(
              request.getRequestLine(),
              request.method(),
              request.getPath(),
              request.getHeaders(),
              new Buffer(JSON.writeValueAsBytes(outcome.object())));
    }
    MockResponse response = crud.dispatch(forwarded);
    for (String warning : outcome.warnings()) {
      response.addHeader("Warning", "299 - \"" + warning.replace("\"", "'") + "\"");
    }
    return response;
  }

  /**
   * A merge or JSON patch as the PUT of its result, applied to the stored object under the write
   * lock as the API server would. fabric8's mock appends arrays where RFC 7386 replaces them, and
   * misreads a JSON Patch append ({@code /-}) on a subresource.
   */
  private Optional<RecordedRequest> patchAsPut(RecordedRequest request) throws IOException {
    JsonNode old = current(request.getPath());
    if (old == null) {
      return Optional.empty();
    }
    JsonNode merged = patched(old, request);
    return Optional.of(
        new RecordedRequest(
            request.getRequestLine().replaceFirst("^PATCH", "PUT"),
            HttpMethod.PUT,
            request.getPath(),
            request.getHeaders(),
            new Buffer(JSON.writeValueAsBytes(merged))));
  }

  /**
   * A 409 when the PUT names a resourceVersion that is no longer the stored one, as the API server
   * answers: whoever read the object before another write must read it again.
   */
  private Optional<MockResponse> staleWrite(RecordedRequest request, ApiPath api)
      throws IOException {
    String sent =
        JSON.readTree(request.getBody().getBytes())
            .path("metadata")
            .path("resourceVersion")
            .asText("");
    JsonNode stored = current(request.getPath());
    if (sent.isEmpty() || stored == null) {
      return Optional.empty();
    }
    if (sent.equals(stored.path("metadata").path("resourceVersion").asText())) {
      return Optional.empty();
    }
    return Optional.of(
        status(
            409,
            "Conflict",
            "Operation cannot be fulfilled on "
                + api.plural()
                + " \""
                + stored.path("metadata").path("name").asText()
                + "\": the object has been modified; please apply your changes to the latest"
                + " version and try again"));
  }

  private JsonNode current(String path) throws IOException {
    String bare =
        (path.contains("?") ? path.substring(0, path.indexOf('?')) : path)
            .replaceFirst("/status$", "");
    MockResponse response = crud.handleGet(bare);
    return response.code() == 200 ? JSON.readTree(response.getBody().getBytes()) : null;
  }

  /** {@code old} with the request's JSON Patch or merge patch applied, as the store would. */
  private static JsonNode patched(JsonNode old, RecordedRequest request) throws IOException {
    JsonNode patch = JSON.readTree(request.getBody().getBytes());
    String type = header(request, "Content-Type");
    if (type.contains("json-patch")) {
      return JsonPatch.apply(patch, old);
    }
    return merge(old.deepCopy(), patch);
  }

  /** RFC 7386. */
  private static JsonNode merge(JsonNode target, JsonNode patch) {
    if (!patch.isObject()) {
      return patch;
    }
    ObjectNode out = target.isObject() ? (ObjectNode) target : JSON.createObjectNode();
    patch
        .properties()
        .forEach(
            e -> {
              if (e.getValue().isNull()) {
                out.remove(e.getKey());
              } else {
                out.set(
                    e.getKey(),
                    merge(
                        out.path(e.getKey()).isMissingNode()
                            ? JSON.nullNode()
                            : out.get(e.getKey()),
                        e.getValue()));
              }
            });
    return out;
  }

  private static MockResponse json(int code, JsonNode body) throws IOException {
    return new MockResponse()
        .setResponseCode(code)
        .setHeader("Content-Type", "application/json")
        .setBody(JSON.writeValueAsBytes(body));
  }

  private static MockResponse status(int code, String reason, String message) {
    ObjectNode status = JSON.createObjectNode().put("apiVersion", "v1").put("kind", "Status");
    status.putObject("metadata");
    status.put("status", "Failure").put("message", message).put("reason", reason).put("code", code);
    return new MockResponse()
        .setResponseCode(code)
        .setHeader("Content-Type", "application/json")
        .setBody(status.toString().getBytes(StandardCharsets.UTF_8));
  }
}
