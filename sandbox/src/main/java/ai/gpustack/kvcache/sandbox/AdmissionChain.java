package ai.gpustack.kvcache.sandbox;

import ai.gpustack.kvcache.admission.Admission;
import ai.gpustack.kvcache.admission.Decision;
import ai.gpustack.kvcache.admission.Request;
import ai.gpustack.kvcache.admission.Route;
import ai.gpustack.kvcache.cluster.ClusterView;
import ai.gpustack.kvcache.spi.EngineRegistry;
import ai.gpustack.kvcache.webhook.WebhookConfigurations;
import com.fasterxml.jackson.databind.JsonNode;
import io.fabric8.kubernetes.api.model.LabelSelector;
import io.fabric8.kubernetes.api.model.LabelSelectorRequirement;
import io.fabric8.kubernetes.api.model.admissionregistration.v1.MutatingWebhook;
import io.fabric8.kubernetes.api.model.admissionregistration.v1.RuleWithOperations;
import io.fabric8.kubernetes.api.model.admissionregistration.v1.ValidatingWebhook;
import io.fabric8.kubernetes.api.model.admissionregistration.v1.WebhookClientConfig;
import io.fabric8.zjsonpatch.JsonPatch;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.UUID;
import java.util.function.BooleanSupplier;

/**
 * What a real API server does with a write before storing it: every matching mutating webhook in
 * order, then every matching validating webhook, as the generated webhook configurations select
 * them (rules, object and namespace selectors). The rules are called in-process.
 */
final class AdmissionChain {
  private final EngineRegistry engines;
  private final List<Hook> hooks = new ArrayList<>();

  /** One webhook of either configuration: what selects a write for it, and its route. */
  private record Hook(
      String name,
      List<RuleWithOperations> rules,
      LabelSelector objects,
      LabelSelector namespaces,
      String failurePolicy,
      WebhookClientConfig client,
      Route route) {
    Hook(
        String name,
        List<RuleWithOperations> rules,
        LabelSelector objects,
        LabelSelector namespaces,
        String failurePolicy,
        WebhookClientConfig client) {
      this(
          name,
          rules,
          objects,
          namespaces,
          failurePolicy,
          client,
          Route.forPath(client.getService().getPath()).orElseThrow());
    }

    /** What the API server answers when the webhook's Service has no Ready endpoint. */
    String unreachable() {
      var service = client.getService();
      return "Internal error occurred: failed calling webhook \""
          + name
          + "\": failed to call webhook: Post \"https://"
          + service.getName()
          + "."
          + service.getNamespace()
          + ".svc:"
          + service.getPort()
          + service.getPath()
          + "?timeout=10s\": no endpoints available for service \""
          + service.getName()
          + "\"";
    }
  }

  /** Whether the webhook Service has a Ready endpoint (a cluster that runs the operator has). */
  private volatile BooleanSupplier endpoints = () -> true;

  AdmissionChain(EngineRegistry engines) {
    this.engines = engines;
    WebhookConfigurations.Target target = WebhookConfigurations.Target.service(null);
    // Mutating webhooks first, then validating ones, as the API server calls them.
    for (MutatingWebhook w : WebhookConfigurations.mutating(target, Map.of()).getWebhooks()) {
      hooks.add(
          new Hook(
              w.getName(),
              w.getRules(),
              w.getObjectSelector(),
              w.getNamespaceSelector(),
              w.getFailurePolicy(),
              w.getClientConfig()));
    }
    for (ValidatingWebhook w : WebhookConfigurations.validating(target, Map.of()).getWebhooks()) {
      hooks.add(
          new Hook(
              w.getName(),
              w.getRules(),
              w.getObjectSelector(),
              w.getNamespaceSelector(),
              w.getFailurePolicy(),
              w.getClientConfig()));
    }
  }

  /**
   * From now on, whether the webhook Service has an endpoint: while {@code ready} is false, a write
   * a webhook selects fails as the API server fails it ({@code failurePolicy: Fail}) or passes
   * unreviewed ({@code Ignore}).
   */
  void endpoints(BooleanSupplier ready) {
    this.endpoints = ready;
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
    for (Hook hook : hooks) {
      if (!matches(hook, operation, path, namespace, current, oldObject)) {
        continue;
      }
      if (!endpoints.getAsBoolean()) {
        if ("Ignore".equals(hook.failurePolicy())) {
          continue;
        }
        return new Outcome(false, current, List.of(), 500, hook.unreachable());
      }
      Decision d =
          admission.decide(
              hook.route(),
              new Request(
                  UUID.randomUUID().toString(),
                  kind,
                  operation,
                  namespace,
                  name,
                  current,
                  oldObject));
      if (!d.allowed()) {
        return new Outcome(false, current, List.of(), d.code(), denied(hook.name(), d.message()));
      }
      warnings.addAll(d.warnings());
      if (d.patch().isPresent()) {
        current = JsonPatch.apply(d.patch().get().operations(), current);
      }
    }
    return new Outcome(true, current, warnings, 200, "");
  }

  private static String denied(String webhook, String message) {
    return "admission webhook \"" + webhook + "\" denied the request: " + message;
  }

  private static boolean matches(
      Hook hook,
      String operation,
      ApiPath path,
      String namespace,
      JsonNode object,
      JsonNode oldObject) {
    boolean rule =
        hook.rules().stream()
            .anyMatch(
                r ->
                    r.getOperations().contains(operation)
                        && r.getApiGroups().contains(path.group())
                        && r.getResources().contains(path.plural()));
    if (!rule) {
      return false;
    }
    if (hook.namespaces() != null
        && !selects(hook.namespaces(), Map.of("kubernetes.io/metadata.name", namespace))) {
      return false;
    }
    // As the API server does, an object selector matches if the new or the old object matches.
    return hook.objects() == null
        || selects(hook.objects(), labels(object))
        || selects(hook.objects(), labels(oldObject));
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
