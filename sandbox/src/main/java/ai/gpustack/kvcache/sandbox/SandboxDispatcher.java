package ai.gpustack.kvcache.sandbox;

import static ai.gpustack.kvcache.api.Quoting.quote;

import ai.gpustack.kvcache.resources.Keys;
import ai.gpustack.kvcache.resources.KvCacheSerialization;
import ai.gpustack.kvcache.resources.ModelDeployment;
import ai.gpustack.kvcache.spi.EngineRegistry;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.client.utils.KubernetesSerialization;
import io.fabric8.mockwebserver.dsl.HttpMethod;
import io.fabric8.mockwebserver.http.Buffer;
import io.fabric8.mockwebserver.http.Dispatcher;
import io.fabric8.mockwebserver.http.MockResponse;
import io.fabric8.mockwebserver.http.RecordedRequest;
import io.fabric8.zjsonpatch.JsonPatch;
import java.io.IOException;
import java.net.URLDecoder;
import java.nio.charset.StandardCharsets;
import java.security.SecureRandom;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.function.Consumer;

/**
 * The embedded API server's front: discovery, OpenAPI, server-side tables, self-subject reviews,
 * and for every write what a real API server does before storing it (namespace, conflicts, the CRD
 * schema with {@code fieldValidation}, the admission chain, {@code dryRun}); everything else goes
 * to fabric8's CRUD store. Answers are the API server's, Status for Status, so kubectl words them
 * as it would against a cluster.
 */
final class SandboxDispatcher extends Dispatcher {
  private static final ObjectMapper JSON = new ObjectMapper();
  private static final String NAME_CHARS = "bcdfghjklmnpqrstvwxz2456789";
  private static final SecureRandom RANDOM = new SecureRandom();

  private final Store crud;
  private final WatchHub hub;
  private final ResourceCatalog catalog;
  private final OpenApi openApi;
  private final AdmissionChain chain;
  private final KubernetesSerialization serialization = KvCacheSerialization.create();
  private final EngineEndpoints endpoints;
  private final Consumer<String> refusals;
  private volatile String serverAddress = "127.0.0.1";
  private volatile boolean admission = true;
  private final Object writes = new Object();
  private volatile Consumer<RecordedRequest> recorder = r -> {};

  SandboxDispatcher(
      Store crud,
      WatchHub hub,
      ResourceCatalog catalog,
      EngineRegistry engines,
      Consumer<String> refusals) {
    this.crud = crud;
    this.hub = hub;
    this.catalog = catalog;
    this.openApi = new OpenApi(catalog);
    this.chain = new AdmissionChain(engines);
    this.endpoints = new EngineEndpoints(engines, this::ownerOf);
    this.refusals = refusals;
  }

  /** Every object in the store now, as JSON. */
  List<String> stored() {
    Map<?, String> map = crud.getMap();
    synchronized (map) {
      return new ArrayList<>(map.values());
    }
  }

  void serverAddress(String address) {
    this.serverAddress = address;
  }

  /** Turns the admission chain on or off, as when a webhook is not (yet) registered. */
  void admission(boolean on) {
    this.admission = on;
  }

  /** Whether the webhook Service has a Ready endpoint; see {@link AdmissionChain#endpoints}. */
  void webhookEndpoints(java.util.function.BooleanSupplier ready) {
    chain.endpoints(ready);
  }

  /** A request the HTTPS front answers itself (a watch), for the audit log. */
  void served(RecordedRequest request) {
    recorder.accept(request);
  }

  /** Hands every request to {@code recorder} first (an audit log, for tests of permissions). */
  void record(Consumer<RecordedRequest> recorder) {
    this.recorder = recorder;
  }

  @Override
  public MockResponse dispatch(RecordedRequest request) {
    recorder.accept(request);
    try {
      if (request.method() == HttpMethod.GET) {
        return serve(request);
      }
      // One write at a time: a patch reads the stored object and writes its result, and a PUT is
      // checked against the stored resourceVersion; both must see no write in between.
      synchronized (writes) {
        return serve(request);
      }
    } catch (io.fabric8.zjsonpatch.JsonPatchException e) {
      return status(Statuses.of(422, "Invalid", "the patch does not apply: " + e.getMessage()));
    } catch (IOException e) {
      return status(Statuses.badRequest("the body is not JSON: " + firstLine(e.getMessage())));
    } catch (RuntimeException e) {
      return status(Statuses.of(500, "InternalError", "the sandbox API server failed: " + e));
    }
  }

  private MockResponse serve(RecordedRequest sent) throws IOException {
    RecordedRequest request;
    try {
      request = asJson(sent);
    } catch (Protobuf.Unreadable e) {
      return status(Statuses.of(415, "UnsupportedMediaType", e.getMessage()));
    }
    String path = request.getPath();
    String bare = path.contains("?") ? path.substring(0, path.indexOf('?')) : path;
    Map<String, String> query = query(path);
    HttpMethod method = request.method();
    if (method == HttpMethod.GET) {
      Optional<MockResponse> special = nonResource(request, bare);
      if (special.isPresent()) {
        return special.get();
      }
    }
    if (method == HttpMethod.POST && bare.endsWith("/selfsubjectaccessreviews")) {
      return json(201, AccessReviews.access(JSON.readTree(request.getBody().getBytes())));
    }
    if (method == HttpMethod.POST && bare.endsWith("/selfsubjectrulesreviews")) {
      return json(201, AccessReviews.rules(JSON.readTree(request.getBody().getBytes())));
    }
    Optional<ApiPath> api = ApiPath.parse(path);
    boolean watch = "true".equals(query.get("watch")) || "1".equals(query.get("watch"));
    if (api.isEmpty() || watch) {
      // fabric8's clients watch over WebSocket, which the store serves; plain-HTTP watches never
      // get here (WatchStream streams them).
      return crud.dispatch(request);
    }
    Optional<ResourceCatalog.Resource> found = catalog.find(api.get().group(), api.get().plural());
    if (found.isEmpty()) {
      return status(Statuses.notFound("the server could not find the requested resource"));
    }
    Resource r = new Resource(api.get(), found.get(), query, request);
    Optional<String> subresource = api.get().subresource();
    if (subresource.filter("scale"::equals).isPresent() && found.get().scalable()) {
      return scale(r);
    }
    if (subresource.filter("proxy"::equals).isPresent() && found.get().kind().equals("Pod")) {
      return proxy(r, path);
    }
    if (subresource.isPresent() && !subresource.get().equals("status")) {
      return status(
          found.get().kind().equals("Pod") && CONTAINER_SUBRESOURCES.contains(subresource.get())
              ? Statuses.badRequest(
                  "the sandbox runs no containers, so pod \""
                      + r.name()
                      + "\" has no "
                      + subresource.get()
                      + " to serve")
              : Statuses.notFound("the server could not find the requested resource"));
    }
    return switch (method) {
      case GET -> get(r);
      case POST -> create(r);
      case PUT -> update(r, JSON.readTree(request.getBody().getBytes()), false);
      case PATCH -> patch(r);
      case DELETE -> delete(r);
      default -> crud.dispatch(request);
    };
  }

  /** What a Pod's running containers would serve. */
  private static final Set<String> CONTAINER_SUBRESOURCES =
      Set.of("log", "exec", "attach", "portforward");

  /**
   * {@code pods/NAME[:PORT]/proxy/PATH}: the replica's engine endpoint, answered by the stand-in
   * engine (a GET of its dtype report), as the API server relays a container's answer.
   */
  private MockResponse proxy(Resource r, String path) {
    String target = r.path().name().orElse("");
    int colon = target.lastIndexOf(':');
    String name = colon < 0 ? target : target.substring(0, colon);
    int port;
    try {
      port = colon < 0 ? 80 : Integer.parseInt(target.substring(colon + 1));
    } catch (NumberFormatException e) {
      return status(Statuses.badRequest("invalid port in " + quote(target)));
    }
    String bare = path.contains("?") ? path.substring(0, path.indexOf('?')) : path;
    int at = bare.indexOf("/proxy");
    String tail = bare.substring(at + "/proxy".length());
    String podPath =
        "/api/v1/namespaces/" + r.path().namespace().orElse("default") + "/pods/" + name;
    Optional<Pod> pod = current(podPath).map(p -> serialization.convertValue(p, Pod.class));
    if (pod.isEmpty()) {
      return status(Statuses.notFound("pods \"" + name + "\" not found"));
    }
    EngineEndpoints.Answer answer = endpoints.get(pod.get(), port, tail.isEmpty() ? "/" : tail);
    return new MockResponse()
        .setResponseCode(answer.code())
        .setHeader("Content-Type", "text/plain; charset=utf-8")
        .setBody(answer.body());
  }

  /** The deployment a managed replica belongs to, read from the store. */
  private Optional<ModelDeployment> ownerOf(Pod pod) {
    Map<String, String> labels = pod.getMetadata().getLabels();
    if (labels == null || labels.get(Keys.INSTANCE) == null) {
      return Optional.empty();
    }
    return current(
            "/apis/worker.gpustack.ai/v1/namespaces/"
                + pod.getMetadata().getNamespace()
                + "/modeldeployments/"
                + labels.get(Keys.INSTANCE))
        .map(n -> serialization.convertValue(n, ModelDeployment.class))
        .filter(md -> md.getSpec() != null);
  }

  /** {@code request} with a protobuf body read into JSON; any other as it is. */
  private static RecordedRequest asJson(RecordedRequest request) throws Protobuf.Unreadable {
    if (request.getBody() == null
        || request.getBody().size() == 0
        || !Protobuf.is(header(request, "Content-Type"))) {
      return request;
    }
    byte[] json =
        Protobuf.decode(request.getBody().getBytes()).toString().getBytes(StandardCharsets.UTF_8);
    return new RecordedRequest(
        request.getHttpVersion(),
        request.method(),
        request.getPath(),
        request
            .getHeaders()
            .newBuilder()
            .removeAll("Content-Type")
            .removeAll("content-type")
            .add("Content-Type", "application/json")
            .build(),
        new Buffer(json));
  }

  /** One request against one resource. */
  private record Resource(
      ApiPath path,
      ResourceCatalog.Resource kind,
      Map<String, String> query,
      RecordedRequest request) {
    String name() {
      return path.name().orElse("");
    }

    boolean dryRun() {
      return "All".equals(query.get("dryRun"));
    }

    /** {@code Strict}, {@code Warn} (the API server's default) or {@code Ignore}. */
    String fieldValidation() {
      return query.getOrDefault("fieldValidation", "Warn");
    }

    /** The path without query or subresource: where the object itself is stored. */
    String objectPath() {
      String bare =
          request.getPath().contains("?")
              ? request.getPath().substring(0, request.getPath().indexOf('?'))
              : request.getPath();
      return path.subresource().isPresent()
          ? bare.substring(0, bare.length() - path.subresource().get().length() - 1)
          : bare;
    }
  }

  private Optional<MockResponse> nonResource(RecordedRequest request, String bare)
      throws IOException {
    switch (bare) {
      case "/version" -> {
        return Optional.of(
            json(
                200,
                JSON.createObjectNode()
                    .put("major", "1")
                    .put("minor", "32")
                    .put("gitVersion", "v1.32.0-kvcache-sandbox")
                    .put("platform", "linux/amd64")));
      }
      case "/healthz", "/livez", "/readyz" -> {
        return Optional.of(
            new MockResponse()
                .setResponseCode(200)
                .setHeader("Content-Type", "text/plain")
                .setBody("ok"));
      }
      case "/api" -> {
        return Optional.of(json(200, catalog.apiVersions(serverAddress)));
      }
      case "/apis" -> {
        return Optional.of(json(200, catalog.groups()));
      }
      case "/openapi/v2" -> {
        // An empty protobuf document: kubectl reads it as "nothing to validate on the client",
        // which is what it asks v2 for only as a fallback to the v3 documents below.
        return Optional.of(
            new MockResponse()
                .setResponseCode(200)
                .setHeader("Content-Type", OpenApi.V2_CONTENT_TYPE)
                .setBody(new byte[0]));
      }
      case "/openapi/v3" -> {
        return Optional.of(
            new MockResponse()
                .setResponseCode(200)
                .setHeader("Content-Type", "application/json")
                .setBody(openApi.discovery()));
      }
      default -> {
        if (bare.startsWith("/openapi/v3/")) {
          return Optional.of(
              openApi
                  .document(bare.substring("/openapi/v3/".length()))
                  .map(d -> openApiDocument(request, d))
                  .orElseGet(
                      () ->
                          status(
                              Statuses.notFound(
                                  "the server could not find the requested resource"))));
        }
        String[] s = bare.replaceAll("^/+|/+$", "").split("/");
        if (s.length == 2 && s[0].equals("api")) {
          return catalog.resources("", s[1]).map(n -> json(200, n));
        }
        if (s.length == 3 && s[0].equals("apis")) {
          return catalog.resources(s[1], s[2]).map(n -> json(200, n));
        }
        return Optional.empty();
      }
    }
  }

  private static MockResponse openApiDocument(RecordedRequest request, OpenApi.Document d) {
    String etag = "\"" + d.hash() + "\"";
    if (etag.equals(header(request, "If-None-Match"))) {
      return new MockResponse().setResponseCode(304).setHeader("Etag", etag);
    }
    return new MockResponse()
        .setResponseCode(200)
        .setHeader("Content-Type", "application/json")
        .setHeader("Etag", etag)
        .setHeader("Vary", "Accept")
        .setBody(d.json());
  }

  private MockResponse get(Resource r) throws IOException {
    if (r.path().name().isPresent()) {
      Optional<JsonNode> object = current(r.objectPath());
      if (object.isEmpty() && EventConversion.isEvents(r.kind())) {
        object =
            otherEventsApi(r)
                .flatMap(this::current)
                .map(e -> EventConversion.as(r.kind().group(), e));
      }
      if (object.isEmpty()) {
        return status(Statuses.notFound(r.kind(), r.name()));
      }
      return answer(r, 200, object.get());
    }
    List<JsonNode> items = list(r.objectPath());
    if (EventConversion.isEvents(r.kind())) {
      otherEventsApi(r)
          .ifPresent(p -> list(p).forEach(e -> items.add(EventConversion.as(r.kind().group(), e))));
    }
    Selector labels =
        Optional.ofNullable(r.query().get("labelSelector"))
            .map(Selector::labels)
            .orElse(Selector.EVERYTHING);
    Selector fields =
        Optional.ofNullable(r.query().get("fieldSelector"))
            .map(Selector::fields)
            .orElse(Selector.EVERYTHING);
    ObjectNode list =
        JSON.createObjectNode()
            .put("apiVersion", r.kind().apiVersion())
            .put("kind", r.kind().kind() + "List");
    list.putObject("metadata").put("resourceVersion", Long.toString(hub.latest()));
    ArrayNode out = list.putArray("items");
    items.stream().filter(labels).filter(fields).forEach(out::add);
    return answer(r, 200, list);
  }

  /** The same events path in the other events API, for a list or get of events. */
  private static Optional<String> otherEventsApi(Resource r) {
    String ns = r.path().namespace().map(n -> "/namespaces/" + n).orElse("");
    String name = r.path().name().map(n -> "/" + n).orElse("");
    return Optional.of(
        (r.kind().group().isEmpty() ? "/apis/events.k8s.io/v1" : "/api/v1")
            + ns
            + "/events"
            + name);
  }

  private MockResponse create(Resource r) throws IOException {
    JsonNode body = JSON.readTree(r.request().getBody().getBytes());
    if (!body.isObject()) {
      return status(Statuses.badRequest("the body of the request is not a JSON object"));
    }
    ObjectNode object = (ObjectNode) body;
    ObjectNode meta = object.withObject("metadata");
    if (r.path().namespace().isPresent()) {
      String ns = meta.path("namespace").asText("");
      if (!ns.isEmpty() && !ns.equals(r.path().namespace().get())) {
        return status(
            Statuses.badRequest(
                "the namespace of the provided object does not match the namespace sent on the"
                    + " request"));
      }
      meta.put("namespace", r.path().namespace().get());
    }
    if (meta.path("name").asText("").isEmpty()) {
      String prefix = meta.path("generateName").asText("");
      if (prefix.isEmpty()) {
        return status(
            Statuses.invalid(
                r.kind(),
                "",
                List.of(
                    new Statuses.Cause(
                        "FieldValueRequired",
                        "metadata.name",
                        "Required value: name or generateName is required"))));
      }
      meta.put("name", prefix + suffix());
    }
    String name = meta.get("name").asText();
    String at = r.objectPath() + "/" + name;
    if (current(at).isPresent()) {
      return status(Statuses.alreadyExists(r.kind(), name));
    }
    List<String> warnings = new ArrayList<>();
    Optional<MockResponse> invalid = schema(r, object, null, warnings, false);
    if (invalid.isPresent()) {
      return invalid.get();
    }
    JsonNode admitted = object;
    if (admission) {
      AdmissionChain.Outcome outcome =
          chain.admit(
              new StoreClusterView(crud), "CREATE", r.path(), r.kind().kind(), object, null);
      if (!outcome.allowed()) {
        return refused(outcome);
      }
      warnings.addAll(outcome.warnings());
      admitted = outcome.object();
    }
    if (r.dryRun()) {
      return warned(answer(r, 201, admitted), warnings);
    }
    r.path().namespace().ifPresent(this::provisionNamespace);
    MockResponse stored =
        crud.dispatch(
            new RecordedRequest(
                r.request().getHttpVersion(),
                HttpMethod.POST,
                r.objectPath(),
                r.request().getHeaders(),
                new Buffer(JSON.writeValueAsBytes(admitted))));
    if (stored.code() >= 300) {
      return stored;
    }
    return warned(answer(r, 201, current(at).orElse(admitted)), warnings);
  }

  /**
   * Like kube-apiserver's NamespaceAutoProvision admission plugin: writing into a namespace that
   * does not exist creates it, so {@code kubectl get -n} finds it as it finds the objects in it.
   */
  private void provisionNamespace(String namespace) {
    String at = "/api/v1/namespaces/" + namespace;
    if (current(at).isPresent()) {
      return;
    }
    ObjectNode ns = JSON.createObjectNode().put("apiVersion", "v1").put("kind", "Namespace");
    ns.putObject("metadata").put("name", namespace);
    crud.handleCreate(
        new RecordedRequest(
            "HTTP/1.1",
            HttpMethod.POST,
            "/api/v1/namespaces",
            io.fabric8.mockwebserver.http.Headers.builder().build(),
            new Buffer(ns.toString().getBytes(StandardCharsets.UTF_8))));
  }

  private MockResponse update(Resource r, JsonNode body, boolean fromPatch) throws IOException {
    Optional<JsonNode> stored = current(r.objectPath());
    if (stored.isEmpty()) {
      return status(Statuses.notFound(r.kind(), r.name()));
    }
    if (!body.isObject()) {
      return status(Statuses.badRequest("the body of the request is not a JSON object"));
    }
    ObjectNode object = (ObjectNode) body;
    String sent = object.path("metadata").path("resourceVersion").asText("");
    if (!sent.isEmpty()
        && !sent.equals(stored.get().path("metadata").path("resourceVersion").asText())) {
      return status(Statuses.conflict(r.kind(), r.name()));
    }
    boolean subresource = r.path().subresource().isPresent();
    List<String> warnings = new ArrayList<>();
    JsonNode admitted = object;
    if (!subresource) {
      Optional<MockResponse> invalid = schema(r, object, stored.get(), warnings, fromPatch);
      if (invalid.isPresent()) {
        return invalid.get();
      }
      Optional<Statuses.Cause> fixed =
          r.kind().group().isEmpty() && r.kind().kind().equals("Pod")
              ? PodUpdates.refusal(stored.get(), object)
              : Optional.empty();
      if (fixed.isPresent()) {
        return status(Statuses.invalid(r.kind(), r.name(), List.of(fixed.get())));
      }
      if (admission) {
        AdmissionChain.Outcome outcome =
            chain.admit(
                new StoreClusterView(crud),
                "UPDATE",
                r.path(),
                r.kind().kind(),
                object,
                stored.get());
        if (!outcome.allowed()) {
          return refused(outcome);
        }
        warnings.addAll(outcome.warnings());
        admitted = outcome.object();
      }
    }
    if (r.dryRun()) {
      return warned(answer(r, 200, admitted), warnings);
    }
    MockResponse written =
        crud.dispatch(
            new RecordedRequest(
                r.request().getHttpVersion(),
                HttpMethod.PUT,
                r.request().getPath().contains("?")
                    ? r.request().getPath().substring(0, r.request().getPath().indexOf('?'))
                    : r.request().getPath(),
                r.request().getHeaders(),
                new Buffer(JSON.writeValueAsBytes(admitted))));
    if (written.code() >= 300) {
      return written;
    }
    return warned(answer(r, 200, current(r.objectPath()).orElse(admitted)), warnings);
  }

  private MockResponse patch(Resource r) throws IOException {
    String type = header(r.request(), "Content-Type");
    Optional<JsonNode> stored = current(r.objectPath());
    if (type.contains("apply-patch")) {
      return status(
          Statuses.of(
              415,
              "UnsupportedMediaType",
              "the sandbox does not implement server-side apply (application/apply-patch+yaml);"
                  + " apply without --server-side"));
    }
    if (type.contains("strategic-merge-patch") && r.kind().custom()) {
      return status(Statuses.unsupportedPatch());
    }
    if (!type.contains("merge-patch") && !type.contains("json-patch")) {
      return status(Statuses.unsupportedPatch());
    }
    if (stored.isEmpty()) {
      return status(Statuses.notFound(r.kind(), r.name()));
    }
    JsonNode base = stored.get();
    if (r.path().subresource().isPresent()) {
      base = base.deepCopy();
    }
    return update(r, patched(type, base, r.request()), true);
  }

  private static JsonNode patched(String type, JsonNode base, RecordedRequest request)
      throws IOException {
    JsonNode patch = JSON.readTree(request.getBody().getBytes());
    if (type.contains("json-patch")) {
      return JsonPatch.apply(patch, base);
    }
    if (type.contains("strategic-merge-patch")) {
      return StrategicMerge.apply(base, patch);
    }
    return merge(base.deepCopy(), patch);
  }

  /**
   * The {@code scale} subresource, as {@code kubectl scale} reads and patches it: an autoscaling/v1
   * Scale whose {@code spec.replicas} is the object's.
   */
  private MockResponse scale(Resource r) throws IOException {
    Optional<JsonNode> stored = current(r.objectPath());
    if (stored.isEmpty()) {
      return status(Statuses.notFound(r.kind(), r.name()));
    }
    JsonNode scale = scaleOf(stored.get());
    JsonNode wanted;
    switch (r.request().method()) {
      case GET -> {
        return json(200, scale);
      }
      case PUT -> wanted = JSON.readTree(r.request().getBody().getBytes());
      case PATCH -> {
        String type = header(r.request(), "Content-Type");
        if (!type.contains("merge-patch") && !type.contains("json-patch")) {
          return status(Statuses.unsupportedPatch());
        }
        wanted = patched(type, scale, r.request());
      }
      default -> {
        return status(
            Statuses.of(
                405,
                "MethodNotAllowed",
                "the scale subresource is read with GET and written with PUT or PATCH"));
      }
    }
    JsonNode replicas = wanted.path("spec").path("replicas");
    if (!replicas.canConvertToInt() || replicas.asInt() < 0) {
      return status(
          Statuses.invalid(
              r.kind(),
              r.name(),
              List.of(
                  new Statuses.Cause(
                      "FieldValueInvalid",
                      "spec.replicas",
                      "Invalid value: " + replicas + ": must be greater than or equal to 0"))));
    }
    ObjectNode object = stored.get().deepCopy();
    object.withObjectProperty("spec").put("replicas", replicas.asInt());
    Resource whole =
        new Resource(
            ApiPath.parse(r.objectPath()).orElseThrow(),
            r.kind(),
            r.query(),
            new RecordedRequest(
                r.request().getHttpVersion(),
                HttpMethod.PUT,
                r.objectPath(),
                r.request().getHeaders(),
                new Buffer()));
    MockResponse written = update(whole, object, false);
    if (written.code() >= 300) {
      return written;
    }
    return json(200, scaleOf(current(r.objectPath()).orElse(object)));
  }

  private static JsonNode scaleOf(JsonNode object) {
    ObjectNode scale =
        JSON.createObjectNode().put("kind", "Scale").put("apiVersion", "autoscaling/v1");
    ObjectNode metadata = scale.putObject("metadata");
    for (String field :
        List.of("name", "namespace", "uid", "resourceVersion", "creationTimestamp")) {
      if (object.path("metadata").has(field)) {
        metadata.set(field, object.path("metadata").get(field));
      }
    }
    scale.putObject("spec").put("replicas", object.path("spec").path("replicas").asInt(1));
    List<String> selector = new ArrayList<>();
    object
        .path("spec")
        .path("selector")
        .path("matchLabels")
        .properties()
        .forEach(e -> selector.add(e.getKey() + "=" + e.getValue().asText()));
    scale
        .putObject("status")
        .put("replicas", object.path("status").path("replicas").asInt(0))
        .put("selector", String.join(",", selector));
    return scale;
  }

  private MockResponse delete(Resource r) throws IOException {
    Optional<JsonNode> stored = current(r.objectPath());
    if (stored.isEmpty()) {
      return status(Statuses.notFound(r.kind(), r.name()));
    }
    if (r.dryRun()) {
      return answer(r, 200, stored.get());
    }
    MockResponse deleted =
        crud.dispatch(
            new RecordedRequest(
                r.request().getHttpVersion(),
                HttpMethod.DELETE,
                r.objectPath(),
                r.request().getHeaders(),
                new Buffer()));
    if (deleted.code() >= 300) {
      return deleted;
    }
    // Still there with a deletionTimestamp while finalizers hold it; gone otherwise.
    return answer(r, 200, current(r.objectPath()).orElse(stored.get()));
  }

  /**
   * The CRD's schema on a write to a custom resource: unknown fields pruned and reported per {@code
   * fieldValidation}, violations refused as {@code Invalid}.
   */
  private Optional<MockResponse> schema(
      Resource r, ObjectNode object, JsonNode old, List<String> warnings, boolean fromPatch) {
    if (r.kind().schema().isEmpty()) {
      return Optional.empty();
    }
    SchemaCheck.Result result = SchemaCheck.check(r.kind().schema().get(), object, old);
    if (!result.unknown().isEmpty()) {
      List<String> problems =
          result.unknown().stream().map(f -> "unknown field \"" + f + "\"").toList();
      switch (r.fieldValidation()) {
        case "Strict" -> {
          String strict = "strict decoding error: " + String.join(", ", problems);
          if (fromPatch) {
            return Optional.of(
                status(
                    Statuses.of(
                        422,
                        "Invalid",
                        " \"\" is invalid: patch: Invalid value: \""
                            + object.toString().replace("\"", "\\\"")
                            + "\": "
                            + strict)));
          }
          return Optional.of(
              status(
                  Statuses.badRequest(
                      r.kind().kind()
                          + " in version \""
                          + r.kind().version()
                          + "\" cannot be handled as a "
                          + r.kind().kind()
                          + ": "
                          + strict)));
        }
        case "Ignore" -> {}
        default -> warnings.addAll(problems);
      }
    }
    if (!result.violations().isEmpty()) {
      return Optional.of(
          status(
              Statuses.invalid(
                  r.kind(),
                  object.path("metadata").path("name").asText(r.name()),
                  result.violations())));
    }
    return Optional.empty();
  }

  /** {@code object} as asked for: a Table when the client asked for one, else itself. */
  private MockResponse answer(Resource r, int code, JsonNode object) {
    boolean table = header(r.request(), "Accept").contains("as=Table");
    return json(code, table ? Tables.table(r.kind(), object) : object);
  }

  private static MockResponse warned(MockResponse response, List<String> warnings) {
    for (String warning : warnings) {
      response.addHeader(
          "Warning", "299 - \"" + warning.replace("\\", "\\\\").replace("\"", "\\\"") + "\"");
    }
    return response;
  }

  /** A request header by name, ignoring case (HTTP/2 sends lowercase names); "" when absent. */
  private static String header(RecordedRequest request, String name) {
    return request.getHeaders().toMultimap().entrySet().stream()
        .filter(e -> e.getKey().equalsIgnoreCase(name))
        .flatMap(e -> e.getValue().stream())
        .findFirst()
        .orElse("");
  }

  private static Map<String, String> query(String path) {
    Map<String, String> out = new LinkedHashMap<>();
    int q = path.indexOf('?');
    if (q < 0) {
      return out;
    }
    for (String pair : path.substring(q + 1).split("&")) {
      if (pair.isEmpty()) {
        continue;
      }
      int eq = pair.indexOf('=');
      String key = URLDecoder.decode(eq < 0 ? pair : pair.substring(0, eq), StandardCharsets.UTF_8);
      String value =
          eq < 0 ? "" : URLDecoder.decode(pair.substring(eq + 1), StandardCharsets.UTF_8);
      out.put(key, value);
    }
    return out;
  }

  private Optional<JsonNode> current(String path) {
    MockResponse response = crud.handleGet(path);
    if (response.code() != 200 || response.getBody() == null) {
      return Optional.empty();
    }
    try {
      return Optional.of(JSON.readTree(response.getBody().getBytes()));
    } catch (IOException e) {
      return Optional.empty();
    }
  }

  /** The items stored under a collection path. */
  /** The objects under {@code path} in the API server's order: by namespace, then name. */
  private List<JsonNode> list(String path) {
    List<JsonNode> items = new ArrayList<>();
    current(path).ifPresent(l -> l.path("items").forEach(items::add));
    items.sort(
        Comparator.comparing((JsonNode o) -> o.path("metadata").path("namespace").asText())
            .thenComparing(o -> o.path("metadata").path("name").asText()));
    return items;
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

  private static String suffix() {
    StringBuilder s = new StringBuilder(5);
    for (int i = 0; i < 5; i++) {
      s.append(NAME_CHARS.charAt(RANDOM.nextInt(NAME_CHARS.length())));
    }
    return s.toString();
  }

  private static String firstLine(String s) {
    return String.valueOf(s).lines().findFirst().orElse("");
  }

  private static MockResponse json(int code, JsonNode body) {
    try {
      return new MockResponse()
          .setResponseCode(code)
          .setHeader("Content-Type", "application/json")
          .setBody(JSON.writeValueAsBytes(body));
    } catch (IOException e) {
      throw new java.io.UncheckedIOException(e);
    }
  }

  /** An admission refusal, as the API server relays a webhook's denial. */
  private MockResponse refused(AdmissionChain.Outcome outcome) {
    refusals.accept(outcome.message());
    return status(
        Statuses.of(
            outcome.code(),
            switch (outcome.code()) {
              case 400 -> "BadRequest";
              case 500 -> "InternalError";
              default -> "Forbidden";
            },
            outcome.message()));
  }

  private static MockResponse status(Statuses.Status status) {
    return new MockResponse()
        .setResponseCode(status.code())
        .setHeader("Content-Type", "application/json")
        .setBody(status.json());
  }
}
