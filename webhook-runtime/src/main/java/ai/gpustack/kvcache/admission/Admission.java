package ai.gpustack.kvcache.admission;

import ai.gpustack.kvcache.api.Json;
import ai.gpustack.kvcache.attach.AttachmentResolver;
import ai.gpustack.kvcache.cluster.ClusterView;
import ai.gpustack.kvcache.resources.KvCacheSerialization;
import ai.gpustack.kvcache.spi.EngineRegistry;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.fabric8.kubernetes.api.model.admission.v1.AdmissionReview;
import io.fabric8.kubernetes.client.utils.KubernetesSerialization;
import java.util.EnumMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/**
 * The admission webhook's logic behind one entry point: routes an AdmissionReview to its route's
 * {@link Rule} and writes the answer. Pure and thread-safe; cluster state comes from the {@link
 * ClusterView}. A rule that throws is a bug: the exception propagates to the caller (the webhook
 * server logs it, counts it and refuses the review), never answered as a plausible denial.
 */
public final class Admission {
  private static final ObjectMapper JSON = new ObjectMapper();

  /**
   * One mapper for every Admission: a mapper builds its (de)serializers on first use, and the
   * sandbox builds an Admission per admitted write.
   */
  private static final ObjectMapper MAPPER = Json.newMapper();

  private static final KubernetesSerialization SERIALIZATION = KvCacheSerialization.create(MAPPER);

  private final Map<Route, Rule> rules = new EnumMap<>(Route.class);
  private final ClusterView cluster;

  public Admission(EngineRegistry engines, ClusterView cluster) {
    this.cluster = cluster;
    ObjectReader reader = new ObjectReader(MAPPER);
    AttachmentResolver resolver = new AttachmentResolver(engines);
    rules.put(Route.KV_CACHE_POOL_BINDING, new BindingRule(engines, cluster, reader));
    rules.put(Route.KV_CACHE_POOL, new PoolRule(reader));
    rules.put(Route.KV_CACHE_BACKEND, new BackendRule(reader));
    rules.put(Route.MODEL_DEPLOYMENT, new DeploymentRule(engines, resolver, cluster, reader));
    rules.put(Route.SETTING, new SettingRule(reader));
    rules.put(Route.POD_INJECTION, new PodInjection(engines, resolver, cluster, reader));
    rules.put(Route.POD_FREEZE, new PodFreeze(reader));
  }

  /**
   * Whether a review may be answered inside {@link ai.gpustack.kvcache.cluster.MemoryOnly#attempt}:
   * the rules are pure, so it is whether the view may block without asking.
   */
  public boolean answersFromMemory() {
    return !cluster.mayBlock();
  }

  /**
   * Answers a review sent to {@code route}'s path. Throws {@link AdmissionException} when the
   * review cannot be answered: not a review, no request, no uid, or another kind than the route
   * takes.
   */
  public JsonNode review(Route route, JsonNode review) {
    Request request = parse(review);
    if (!route.kind().equals(request.kind())) {
      throw new AdmissionException(
          400, route.path() + " admits " + route.kind() + ", not " + request.kind());
    }
    return respond(request.uid(), decide(route, request));
  }

  /** Answers a typed review, choosing the route an API server would call for its kind. */
  public AdmissionReview review(AdmissionReview review) {
    JsonNode node = SERIALIZATION.convertValue(review, JsonNode.class);
    Request request = parse(node);
    Route route =
        Route.forKind(request.kind(), request.operation())
            .orElseThrow(
                () ->
                    new AdmissionException(
                        400, "no route admits " + request.operation() + " of " + request.kind()));
    return SERIALIZATION.convertValue(
        respond(request.uid(), decide(route, request)), AdmissionReview.class);
  }

  /**
   * The decision of {@code route}'s rule on {@code request}. An operation the route does not take
   * is allowed, as the API server would never send it; an object that does not read as its kind is
   * refused naming the field.
   */
  public Decision decide(Route route, Request request) {
    if (!route.operations().contains(request.operation())) {
      return Decision.allow(List.of());
    }
    if (readsCluster(route, request)) {
      Optional<String> stale = cluster.staleness();
      if (stale.isPresent()) {
        return Decision.deny(
            503,
            request.subject()
                + " cannot be checked now: the webhook "
                + stale.get()
                + ", so it cannot vouch for the Bindings, pools and deployments the check reads;"
                + " it is refused rather than admitted unchecked. Retry once the webhook reaches"
                + " the API server again (a Pod's owner retries by itself)");
      }
    }
    try {
      return rules.get(route).decide(request);
    } catch (ObjectReader.Unreadable e) {
      return Decision.deny(
          400, request.subject() + " is unreadable: " + String.join(", ", e.problems().messages()));
    }
  }

  /**
   * Whether the rule's verdict on {@code request} depends on cluster state: injecting a Pod,
   * creating a Binding or a deployment, and updating a deployment that is not being deleted. An
   * update that finishes a deletion (a finalizer removed), a Binding update (its rules compare old
   * and new), Pools, Backends, Settings and the Pod freeze read nothing, so a stale cache never
   * blocks them.
   */
  private static boolean readsCluster(Route route, Request request) {
    return switch (route) {
      case POD_INJECTION -> true;
      case KV_CACHE_POOL_BINDING -> request.isCreate();
      case MODEL_DEPLOYMENT ->
          request.isCreate()
              || request.object().path("metadata").path("deletionTimestamp").isMissingNode();
      default -> false;
    };
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
          .put("reason", reason(decision.code()))
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

  private static String reason(int code) {
    return switch (code) {
      case 400 -> "BadRequest";
      case 503 -> "ServiceUnavailable";
      case 500 -> "InternalError";
      default -> "Forbidden";
    };
  }
}
