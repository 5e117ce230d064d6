package ai.gpustack.kvcache.admission;

import ai.gpustack.kvcache.api.Message;
import ai.gpustack.kvcache.api.Problems;
import ai.gpustack.kvcache.resources.Keys;
import io.fabric8.kubernetes.api.model.ObjectMeta;
import io.fabric8.kubernetes.api.model.Pod;
import java.util.List;
import java.util.Map;
import java.util.Objects;

/**
 * Pod freeze (validating UPDATE, failurePolicy Ignore): the inject label and the injection record
 * annotations keep the values they had at creation. Everything else, finalizers included, passes.
 */
final class PodFreeze implements Rule {
  private final ObjectReader reader;

  PodFreeze(ObjectReader reader) {
    this.reader = reader;
  }

  @Override
  public Decision decide(Request request) {
    Pod pod = reader.read(request.object(), Pod.class);
    Pod old = reader.read(request.oldObject(), Pod.class);
    Problems problems = Problems.create();
    frozen(
        "metadata.labels",
        Keys.INJECT,
        labels(old.getMetadata()),
        labels(pod.getMetadata()),
        problems);
    for (String key : List.of(Keys.INJECTED, Keys.CLIENT_CONFIG)) {
      frozen(
          "metadata.annotations",
          key,
          annotations(old.getMetadata()),
          annotations(pod.getMetadata()),
          problems);
    }
    return Decision.of(request.subject(), problems, List.of());
  }

  private static void frozen(
      String field,
      String key,
      Map<String, String> before,
      Map<String, String> after,
      Problems problems) {
    if (!Objects.equals(before.get(key), after.get(key))) {
      problems.forbidden(field + "[" + key + "]", Message.POD_FROZEN.detail(key));
    }
  }

  private static Map<String, String> labels(ObjectMeta meta) {
    return meta == null || meta.getLabels() == null ? Map.of() : meta.getLabels();
  }

  private static Map<String, String> annotations(ObjectMeta meta) {
    return meta == null || meta.getAnnotations() == null ? Map.of() : meta.getAnnotations();
  }
}
