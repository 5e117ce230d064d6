package ai.gpustack.kvcache.admission;

import ai.gpustack.kvcache.api.Json;
import ai.gpustack.kvcache.api.Problems;
import ai.gpustack.kvcache.api.ProblemsException;
import ai.gpustack.kvcache.cluster.ClusterView;
import ai.gpustack.kvcache.resources.KvCacheSerialization;
import ai.gpustack.kvcache.spi.EngineRegistry;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.fabric8.kubernetes.api.model.admission.v1.AdmissionReview;
import io.fabric8.kubernetes.client.utils.KubernetesSerialization;

/**
 * Every admission handler of the system, behind one entry point: an AdmissionReview in, an
 * AdmissionReview out. Pure and thread-safe; cluster state comes from the {@link ClusterView}.
 */
public final class Admission {
  private static final ObjectMapper JSON = new ObjectMapper();

  private final KubernetesSerialization serialization;
  private final ObjectReader reader;
  private final BindingRules bindings;
  private final PoolRules pools;
  private final DeploymentRules deployments;
  private final PodInjection injection;
  private final SettingRules settings;

  public Admission(EngineRegistry engines, ClusterView cluster) {
    ObjectMapper mapper = Json.newMapper();
    this.serialization = KvCacheSerialization.create(mapper);
    this.reader = new ObjectReader(mapper);
    this.bindings = new BindingRules(engines, cluster, reader);
    this.pools = new PoolRules(reader);
    this.deployments = new DeploymentRules(engines, cluster, reader);
    this.injection = new PodInjection(engines, cluster, reader);
    this.settings = new SettingRules(reader);
  }

  /**
   * Answers a review sent to {@code handler}'s path. Throws {@link AdmissionException} when the
   * review cannot be answered: not a review, no request, no uid, or another kind than the handler
   * takes.
   */
  public JsonNode review(Handler handler, JsonNode review) {
    Request request = parse(review);
    if (!handler.kind().equals(request.kind())) {
      throw new AdmissionException(
          400, handler.path() + " admits " + handler.kind() + ", not " + request.kind());
    }
    return respond(request.uid(), decide(handler, request));
  }

  /** Answers a typed review, choosing the handler an API server would call for its kind. */
  public AdmissionReview review(AdmissionReview review) {
    JsonNode node = serialization.convertValue(review, JsonNode.class);
    Request request = parse(node);
    Handler handler =
        Handler.forKind(request.kind(), request.operation())
            .orElseThrow(
                () ->
                    new AdmissionException(
                        400, "no handler admits " + request.operation() + " of " + request.kind()));
    return serialization.convertValue(
        respond(request.uid(), decide(handler, request)), AdmissionReview.class);
  }

  /** The decision of {@code handler} on {@code request}. */
  public Decision decide(Handler handler, Request request) {
    try {
      return switch (handler) {
        case KV_CACHE_POOL_BINDING -> bindings.decide(request);
        case KV_CACHE_POOL -> pools.decidePool(request);
        case KV_CACHE_BACKEND -> pools.decideBackend(request);
        case MODEL_DEPLOYMENT -> deployments.decide(request);
        case SETTING -> settings.decide(request);
        case POD_INJECTION -> injection.decide(request);
        case POD_FREEZE -> PodFreeze.decide(request, reader);
      };
    } catch (ObjectReader.Unreadable e) {
      return Decision.deny(
          400, subject(request) + " is unreadable: " + String.join(", ", e.problems().messages()));
    } catch (NullPointerException | ClassCastException | IndexOutOfBoundsException e) {
      // Shapes no API server stores (a null list entry, say) reach here: refuse them, never allow.
      return Decision.deny(
          400, subject(request) + " is unreadable: it holds an empty or mistyped entry");
    }
  }

  static String subject(Request request) {
    String name =
        request.name().isEmpty()
            ? request.object().path("metadata").path("name").asText("")
            : request.name();
    if (name.isEmpty()) {
      String generate = request.object().path("metadata").path("generateName").asText("");
      name = generate.isEmpty() ? "(unnamed)" : generate + "(generated)";
    }
    return request.kind() + " \"" + name + "\"";
  }

  /** Refuses with every problem at once, or allows with the warnings. */
  static Decision verdict(Request request, Problems problems, java.util.List<String> warnings) {
    if (problems.isEmpty()) {
      return Decision.allow(warnings);
    }
    return Decision.deny(
        403, new ProblemsException(subject(request), problems.list()).getMessage());
  }

  /** Reads the request out of a review; throws {@link AdmissionException} when there is none. */
  public static Request parse(JsonNode review) {
    if (review == null || !review.isObject()) {
      throw new AdmissionException(400, "the body is not a JSON object");
    }
    if (!"AdmissionReview".equals(review.path("kind").asText())) {
      throw new AdmissionException(
          400, "the body is not an AdmissionReview (kind " + review.path("kind") + ")");
    }
    JsonNode request = review.path("request");
    if (!request.isObject()) {
      throw new AdmissionException(400, "the AdmissionReview has no request");
    }
    String uid = request.path("uid").asText("");
    if (uid.isEmpty()) {
      throw new AdmissionException(400, "the AdmissionReview request has no uid");
    }
    String kind = request.path("kind").path("kind").asText("");
    if (kind.isEmpty()) {
      throw new AdmissionException(400, "the AdmissionReview request names no kind");
    }
    String operation = request.path("operation").asText("");
    if (operation.isEmpty()) {
      throw new AdmissionException(400, "the AdmissionReview request names no operation");
    }
    return new Request(
        uid,
        kind,
        operation,
        request.path("namespace").asText(""),
        request.path("name").asText(""),
        request.get("object"),
        request.get("oldObject"));
  }

  /** The AdmissionReview v1 answering {@code uid} with {@code decision}. */
  public static JsonNode respond(String uid, Decision decision) {
    ObjectNode review = JSON.createObjectNode();
    review.put("apiVersion", "admission.k8s.io/v1").put("kind", "AdmissionReview");
    ObjectNode response = review.putObject("response");
    response.put("uid", uid).put("allowed", decision.allowed());
    if (!decision.allowed()) {
      response
          .putObject("status")
          .put("code", decision.code())
          .put("reason", decision.code() == 400 ? "BadRequest" : "Forbidden")
          .put("message", decision.message());
    }
    // As bytes, the patch is written base64-encoded straight into the answer.
    decision
        .patch()
        .ifPresent(patch -> response.put("patchType", "JSONPatch").put("patch", patch.json()));
    if (!decision.warnings().isEmpty()) {
      ArrayNode warnings = response.putArray("warnings");
      decision.warnings().forEach(warnings::add);
    }
    return review;
  }
}
