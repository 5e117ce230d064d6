package ai.gpustack.kvcache.sandbox;

import ai.gpustack.kvcache.spi.EngineRegistry;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.fabric8.mockwebserver.dsl.HttpMethod;
import io.fabric8.mockwebserver.http.Buffer;
import io.fabric8.mockwebserver.http.Headers;
import io.fabric8.mockwebserver.http.MockResponse;
import io.fabric8.mockwebserver.http.RecordedRequest;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.function.BooleanSupplier;
import java.util.function.Consumer;

/**
 * What a real API server does with every write before storing it, shared by create, update, patch
 * and the scale subresource: the resource version a PUT was read at, the CRD's schema with {@code
 * fieldValidation}, the fields a Pod may not change, the admission chain, {@code dryRun}, and the
 * namespace a create writes into.
 */
final class WritePipeline {
  private static final ObjectMapper JSON = new ObjectMapper();

  private final Store store;
  private final AdmissionChain chain;
  private final Consumer<String> refusals;
  private volatile boolean admission = true;

  WritePipeline(Store store, EngineRegistry engines, Consumer<String> refusals) {
    this.store = store;
    this.chain = new AdmissionChain(engines);
    this.refusals = refusals;
  }

  /** Turns the admission chain on or off, as when a webhook is not (yet) registered. */
  void admission(boolean on) {
    this.admission = on;
  }

  /** Whether the webhook Service has a Ready endpoint; see {@link AdmissionChain#endpoints}. */
  void webhookEndpoints(BooleanSupplier ready) {
    chain.endpoints(ready);
  }

  /** Stores {@code object}, named and in its namespace, at {@code at} if every check lets it. */
  MockResponse create(ResourceRequest r, ObjectNode object, String at) throws IOException {
    List<String> warnings = new ArrayList<>();
    checkSchema(r, object, null, warnings, false);
    JsonNode admitted = admit(r, "CREATE", object, null, warnings);
    if (!r.dryRun()) {
      r.path().namespace().ifPresent(this::provisionNamespace);
    }
    return store(r, HttpMethod.POST, r.objectPath(), at, 201, admitted, warnings);
  }

  /**
   * Replaces the stored object (or, for {@code status}, its status) with {@code body} if every
   * check lets it; {@code fromPatch} words a Strict refusal as the API server words a patch's.
   */
  MockResponse update(ResourceRequest r, JsonNode body, boolean fromPatch) throws IOException {
    JsonNode stored =
        store
            .read(r.objectPath())
            .orElseThrow(() -> new StatusException(Statuses.notFound(r.kind(), r.name())));
    if (!body.isObject()) {
      throw new StatusException(
          Statuses.badRequest("the body of the request is not a JSON object"));
    }
    ObjectNode object = (ObjectNode) body;
    refuseStaleVersion(r, object, stored);
    List<String> warnings = new ArrayList<>();
    JsonNode admitted = object;
    // The status subresource is stored as sent: neither schema-checked nor admitted.
    if (r.path().subresource().isEmpty()) {
      checkSchema(r, object, stored, warnings, fromPatch);
      refuseFixedPodFields(r, stored, object);
      admitted = admit(r, "UPDATE", object, stored, warnings);
    }
    String at = r.pathWithoutQuery();
    return store(r, HttpMethod.PUT, at, r.objectPath(), 200, admitted, warnings);
  }

  private static void refuseStaleVersion(ResourceRequest r, ObjectNode object, JsonNode stored) {
    String sent = object.path("metadata").path("resourceVersion").asText("");
    if (!sent.isEmpty() && !sent.equals(stored.path("metadata").path("resourceVersion").asText())) {
      throw new StatusException(Statuses.conflict(r.kind(), r.name()));
    }
  }

  private static void refuseFixedPodFields(ResourceRequest r, JsonNode stored, JsonNode object) {
    if (!r.kind().group().isEmpty() || !r.kind().kind().equals("Pod")) {
      return;
    }
    Optional<Statuses.Cause> fixed = PodUpdates.refusal(stored, object);
    if (fixed.isPresent()) {
      throw new StatusException(Statuses.invalid(r.kind(), r.name(), List.of(fixed.get())));
    }
  }

  /**
   * The CRD's schema on a write to a custom resource: unknown fields pruned and reported per {@code
   * fieldValidation}, violations refused as {@code Invalid}.
   */
  private static void checkSchema(
      ResourceRequest r,
      ObjectNode object,
      JsonNode old,
      List<String> warnings,
      boolean fromPatch) {
    if (r.kind().schema().isEmpty()) {
      return;
    }
    SchemaCheck.Result result = SchemaCheck.check(r.kind().schema().get(), object, old);
    if (!result.unknown().isEmpty()) {
      List<String> problems =
          result.unknown().stream().map(f -> "unknown field \"" + f + "\"").toList();
      switch (r.fieldValidation()) {
        case "Strict" -> throw strictRefusal(r, object, problems, fromPatch);
        case "Ignore" -> {}
        default -> warnings.addAll(problems);
      }
    }
    if (!result.violations().isEmpty()) {
      String name = object.path("metadata").path("name").asText(r.name());
      throw new StatusException(Statuses.invalid(r.kind(), name, result.violations()));
    }
  }

  /** Unknown fields under {@code fieldValidation=Strict}, worded as the API server words them. */
  private static StatusException strictRefusal(
      ResourceRequest r, ObjectNode object, List<String> problems, boolean fromPatch) {
    String strict = "strict decoding error: " + String.join(", ", problems);
    if (fromPatch) {
      return new StatusException(
          Statuses.of(
              422,
              "Invalid",
              " \"\" is invalid: patch: Invalid value: \""
                  + object.toString().replace("\"", "\\\"")
                  + "\": "
                  + strict));
    }
    String kind = r.kind().kind();
    return new StatusException(
        Statuses.badRequest(
            kind
                + " in version \""
                + r.kind().version()
                + "\" cannot be handled as a "
                + kind
                + ": "
                + strict));
  }

  /** What the admission chain makes of {@code object}; its warnings join {@code warnings}. */
  private JsonNode admit(
      ResourceRequest r, String operation, ObjectNode object, JsonNode old, List<String> warnings) {
    if (!admission) {
      return object;
    }
    AdmissionChain.Outcome outcome =
        chain.admit(new StoreClusterView(store), operation, r.path(), r.kind().kind(), object, old);
    if (!outcome.allowed()) {
      refusals.accept(outcome.message());
      throw new StatusException(refusal(outcome));
    }
    warnings.addAll(outcome.warnings());
    return outcome.object();
  }

  /** An admission refusal, as the API server relays a webhook's denial. */
  private static Statuses.Status refusal(AdmissionChain.Outcome outcome) {
    String reason =
        switch (outcome.code()) {
          case 400 -> "BadRequest";
          case 500 -> "InternalError";
          default -> "Forbidden";
        };
    return Statuses.of(outcome.code(), reason, outcome.message());
  }

  /**
   * Like kube-apiserver's NamespaceAutoProvision admission plugin: writing into a namespace that
   * does not exist creates it, so {@code kubectl get -n} finds it as it finds the objects in it.
   */
  private void provisionNamespace(String namespace) {
    if (store.read("/api/v1/namespaces/" + namespace).isPresent()) {
      return;
    }
    ObjectNode ns = JSON.createObjectNode().put("apiVersion", "v1").put("kind", "Namespace");
    ns.putObject("metadata").put("name", namespace);
    store.handleCreate(
        new RecordedRequest(
            "HTTP/1.1",
            HttpMethod.POST,
            "/api/v1/namespaces",
            Headers.builder().build(),
            new Buffer(ns.toString().getBytes(StandardCharsets.UTF_8))));
  }

  /**
   * Writes {@code admitted} to the store by {@code method} at {@code to} (not under {@code dryRun})
   * and answers the object as then stored at {@code at}, with the warnings.
   */
  private MockResponse store(
      ResourceRequest r,
      HttpMethod method,
      String to,
      String at,
      int code,
      JsonNode admitted,
      List<String> warnings)
      throws IOException {
    if (r.dryRun()) {
      return Responses.warned(Responses.object(r, code, admitted), warnings);
    }
    MockResponse written =
        store.dispatch(r.resent(method, to, new Buffer(JSON.writeValueAsBytes(admitted))));
    if (written.code() >= 300) {
      return written;
    }
    return Responses.warned(Responses.object(r, code, store.read(at).orElse(admitted)), warnings);
  }
}
