package ai.gpustack.kvcache.operator.sandbox;

import ai.gpustack.kvcache.admission.Admission;
import ai.gpustack.kvcache.admission.ClusterView;
import ai.gpustack.kvcache.admission.Decision;
import ai.gpustack.kvcache.admission.Handler;
import ai.gpustack.kvcache.admission.Request;
import ai.gpustack.kvcache.spi.EngineRegistry;
import ai.gpustack.kvcache.webhook.WebhookConfigurations;
import com.fasterxml.jackson.databind.JsonNode;
import io.fabric8.kubernetes.api.model.LabelSelector;
import io.fabric8.kubernetes.api.model.LabelSelectorRequirement;
import io.fabric8.kubernetes.api.model.admissionregistration.v1.MutatingWebhook;
import io.fabric8.kubernetes.api.model.admissionregistration.v1.RuleWithOperations;
import io.fabric8.kubernetes.api.model.admissionregistration.v1.ValidatingWebhook;
import io.fabric8.zjsonpatch.JsonPatch;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.UUID;

/**
 * What a real API server does with a write before storing it: every matching mutating webhook in
 * order, then every matching validating webhook, as the generated webhook configurations select
 * them (rules, object and namespace selectors). The handlers are called in-process.
 */
final class AdmissionChain {
  private final EngineRegistry engines;
  private final List<MutatingWebhook> mutating;
  private final List<ValidatingWebhook> validating;

  AdmissionChain(EngineRegistry engines) {
    this.engines = engines;
    WebhookConfigurations.Target target = WebhookConfigurations.Target.service(null);
    this.mutating = WebhookConfigurations.mutating(target, Map.of()).getWebhooks();
    this.validating = WebhookConfigurations.validating(target, Map.of()).getWebhooks();
  }

  /** The chain's answer to one write. */
  record Outcome(
      boolean allowed, JsonNode object, List<String> warnings, int code, String message) {}

  Outcome admit(
      ClusterView cluster,
      String operation,
      ApiPath path,
      String kind,
      JsonNode object,
      JsonNode oldObject) {
    Admission admission = new Admission(engines, cluster);
    String namespace = path.namespace().orElse("");
    String name =
        path.name().orElse(object == null ? "" : object.path("metadata").path("name").asText(""));
    List<String> warnings = new ArrayList<>();
    JsonNode current = object;
    for (MutatingWebhook w : mutating) {
      if (matches(
          w.getRules(),
          w.getObjectSelector(),
          w.getNamespaceSelector(),
          operation,
          path,
          namespace,
          current,
          oldObject)) {
        Decision d =
            decide(
                admission,
                w.getClientConfig().getService().getPath(),
                kind,
                operation,
                namespace,
                name,
                current,
                oldObject);
        if (!d.allowed()) {
          return new Outcome(false, current, List.of(), d.code(), denied(w.getName(), d.message()));
        }
        warnings.addAll(d.warnings());
        if (d.patch().isPresent()) {
          current = JsonPatch.apply(d.patch().get(), current);
        }
      }
    }
    for (ValidatingWebhook w : validating) {
      if (matches(
          w.getRules(),
          w.getObjectSelector(),
          w.getNamespaceSelector(),
          operation,
          path,
          namespace,
          current,
          oldObject)) {
        Decision d =
            decide(
                admission,
                w.getClientConfig().getService().getPath(),
                kind,
                operation,
                namespace,
                name,
                current,
                oldObject);
        if (!d.allowed()) {
          return new Outcome(false, current, List.of(), d.code(), denied(w.getName(), d.message()));
        }
        warnings.addAll(d.warnings());
      }
    }
    return new Outcome(true, current, warnings, 200, "");
  }

  private static Decision decide(
      Admission admission,
      String handlerPath,
      String kind,
      String operation,
      String namespace,
      String name,
      JsonNode object,
      JsonNode oldObject) {
    Handler handler = Handler.forPath(handlerPath).orElseThrow();
    return admission.decide(
        handler,
        new Request(
            UUID.randomUUID().toString(), kind, operation, namespace, name, object, oldObject));
  }

  private static String denied(String webhook, String message) {
    return "admission webhook \"" + webhook + "\" denied the request: " + message;
  }

  private static boolean matches(
      List<RuleWithOperations> rules,
      LabelSelector objects,
      LabelSelector namespaces,
      String operation,
      ApiPath path,
      String namespace,
      JsonNode object,
      JsonNode oldObject) {
    boolean rule =
        rules.stream()
            .anyMatch(
                r ->
                    r.getOperations().contains(operation)
                        && r.getApiGroups().contains(path.group())
                        && r.getResources().contains(path.plural()));
    if (!rule) {
      return false;
    }
    if (namespaces != null
        && !selects(namespaces, Map.of("kubernetes.io/metadata.name", namespace))) {
      return false;
    }
    // As the API server does, an object selector matches if the new or the old object matches.
    return objects == null
        || selects(objects, labels(object))
        || selects(objects, labels(oldObject));
  }

  private static Map<String, String> labels(JsonNode object) {
    Map<String, String> labels = new HashMap<>();
    if (object != null) {
      object
          .path("metadata")
          .path("labels")
          .properties()
          .forEach(e -> labels.put(e.getKey(), e.getValue().asText()));
    }
    return labels;
  }

  private static boolean selects(LabelSelector selector, Map<String, String> labels) {
    for (LabelSelectorRequirement r :
        Optional.ofNullable(selector.getMatchExpressions()).orElse(List.of())) {
      String value = labels.get(r.getKey());
      boolean in = value != null && r.getValues().contains(value);
      switch (r.getOperator()) {
        case "In" -> {
          if (!in) {
            return false;
          }
        }
        case "NotIn" -> {
          if (in) {
            return false;
          }
        }
        case "Exists" -> {
          if (value == null) {
            return false;
          }
        }
        case "DoesNotExist" -> {
          if (value != null) {
            return false;
          }
        }
        default -> throw new IllegalStateException("selector operator " + r.getOperator());
      }
    }
    return true;
  }
}
