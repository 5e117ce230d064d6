package ai.gpustack.kvcache.operator.preflight;

import ai.gpustack.kvcache.resources.Keys;
import io.fabric8.kubernetes.api.model.HasMetadata;
import io.fabric8.kubernetes.api.model.ObjectMeta;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.PodTemplateSpec;
import io.fabric8.kubernetes.api.model.apps.DaemonSet;
import io.fabric8.kubernetes.api.model.apps.Deployment;
import io.fabric8.kubernetes.api.model.apps.ReplicaSet;
import io.fabric8.kubernetes.api.model.apps.StatefulSet;
import io.fabric8.kubernetes.api.model.batch.v1.CronJob;
import io.fabric8.kubernetes.api.model.batch.v1.Job;
import java.util.Map;
import java.util.Optional;

/**
 * A Pod template and what owns it: a Deployment, StatefulSet, DaemonSet, ReplicaSet, Job or
 * CronJob's template, or a bare Pod as itself. {@code pod} is the Pod the owner would create.
 */
record PodTemplateOwner(String kind, String namespace, String name, Pod pod) {

  /** The workload {@code object} describes, if it carries a Pod template. */
  static Optional<PodTemplateOwner> of(HasMetadata object) {
    PodTemplateSpec template = template(object);
    String namespace = Optional.ofNullable(object.getMetadata().getNamespace()).orElse("default");
    if (object instanceof Pod p) {
      Pod copy = new Pod(p.getApiVersion(), p.getKind(), p.getMetadata(), p.getSpec(), null);
      copy.getMetadata().setNamespace(namespace);
      return Optional.of(new PodTemplateOwner("Pod", namespace, p.getMetadata().getName(), copy));
    }
    if (template == null || template.getSpec() == null) {
      return Optional.empty();
    }
    ObjectMeta meta = new ObjectMeta();
    meta.setNamespace(namespace);
    meta.setGenerateName(object.getMetadata().getName() + "-");
    if (template.getMetadata() != null) {
      meta.setLabels(template.getMetadata().getLabels());
      meta.setAnnotations(template.getMetadata().getAnnotations());
    }
    Pod pod = new Pod("v1", "Pod", meta, template.getSpec(), null);
    return Optional.of(
        new PodTemplateOwner(object.getKind(), namespace, object.getMetadata().getName(), pod));
  }

  private static PodTemplateSpec template(HasMetadata object) {
    if (object instanceof Deployment d && d.getSpec() != null) {
      return d.getSpec().getTemplate();
    }
    if (object instanceof StatefulSet s && s.getSpec() != null) {
      return s.getSpec().getTemplate();
    }
    if (object instanceof DaemonSet d && d.getSpec() != null) {
      return d.getSpec().getTemplate();
    }
    if (object instanceof ReplicaSet r && r.getSpec() != null) {
      return r.getSpec().getTemplate();
    }
    if (object instanceof Job j && j.getSpec() != null) {
      return j.getSpec().getTemplate();
    }
    if (object instanceof CronJob c
        && c.getSpec() != null
        && c.getSpec().getJobTemplate() != null
        && c.getSpec().getJobTemplate().getSpec() != null) {
      return c.getSpec().getJobTemplate().getSpec().getTemplate();
    }
    return null;
  }

  boolean optsIn() {
    return "true".equals(labels().get(Keys.INJECT));
  }

  /** Whether the webhook already injected this Pod (only bare Pods carry the record). */
  boolean injected() {
    return annotations().containsKey(Keys.INJECTED);
  }

  /** Whether this is an object the cluster stores (read back), not a manifest to apply. */
  boolean live() {
    return pod.getMetadata().getUid() != null || pod.getMetadata().getCreationTimestamp() != null;
  }

  Optional<String> annotation(String key) {
    return Optional.ofNullable(annotations().get(key)).filter(v -> !v.isBlank());
  }

  String display() {
    return kind + " " + namespace + "/" + name;
  }

  private Map<String, String> labels() {
    return Optional.ofNullable(pod.getMetadata().getLabels()).orElse(Map.of());
  }

  private Map<String, String> annotations() {
    return Optional.ofNullable(pod.getMetadata().getAnnotations()).orElse(Map.of());
  }
}
