package ai.gpustack.kvcache.sandbox;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;

/**
 * {@code SelfSubjectAccessReview} and {@code SelfSubjectRulesReview}, as {@code kubectl auth can-i}
 * sends them (protobuf, read into JSON by {@link Protobuf}). The sandbox has one user, who may do
 * everything, so every review is allowed; the answer is JSON, which kubectl accepts.
 */
final class AccessReviews {
  private static final ObjectMapper JSON = new ObjectMapper();

  private AccessReviews() {}

  /** The answer to a SelfSubjectAccessReview: allowed, for what it asked. */
  static ObjectNode access(JsonNode sent) {
    ObjectNode review = review("SelfSubjectAccessReview");
    ObjectNode spec = review.putObject("spec");
    if (sent.get("spec") instanceof ObjectNode asked) {
      spec.setAll(asked);
    }
    review.putObject("status").put("allowed", true);
    return review;
  }

  /** The answer to a SelfSubjectRulesReview: every verb on every resource and URL. */
  static ObjectNode rules(JsonNode sent) {
    ObjectNode review = review("SelfSubjectRulesReview");
    review.putObject("spec").put("namespace", sent.path("spec").path("namespace").asText(""));
    ObjectNode status = review.putObject("status").put("incomplete", false);
    ObjectNode rule = status.putArray("resourceRules").addObject();
    rule.putArray("verbs").add("*");
    rule.putArray("apiGroups").add("*");
    rule.putArray("resources").add("*");
    ObjectNode urls = status.putArray("nonResourceRules").addObject();
    urls.putArray("verbs").add("*");
    urls.putArray("nonResourceURLs").add("*");
    return review;
  }

  private static ObjectNode review(String kind) {
    ObjectNode review =
        JSON.createObjectNode().put("apiVersion", "authorization.k8s.io/v1").put("kind", kind);
    review.putObject("metadata");
    return review;
  }
}
