package ai.gpustack.kvcache.sandbox;

import ai.gpustack.kvcache.resources.Owners;
import ai.gpustack.kvcache.resources.Pods;
import io.fabric8.kubernetes.api.model.OwnerReference;
import io.fabric8.kubernetes.api.model.OwnerReferenceBuilder;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.PodBuilder;
import io.fabric8.kubernetes.api.model.apps.Deployment;
import io.fabric8.kubernetes.api.model.apps.DeploymentCondition;
import io.fabric8.kubernetes.api.model.apps.DeploymentConditionBuilder;
import io.fabric8.kubernetes.api.model.apps.DeploymentStatus;
import io.fabric8.kubernetes.api.model.apps.DeploymentStatusBuilder;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.KubernetesClientException;
import io.fabric8.kubernetes.client.informers.ResourceEventHandler;
import io.fabric8.kubernetes.client.informers.SharedIndexInformer;
import io.fabric8.kubernetes.client.utils.Serialization;
import java.time.Duration;
import java.time.Instant;
import java.time.temporal.ChronoUnit;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.function.BiConsumer;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A stand-in for the Deployment and ReplicaSet controllers: a Deployment's Pods are created through
 * admission as a ReplicaSet creates them, a refused Pod is reported and retried, and the
 * Deployment's status counts its ready Pods, so {@code kubectl rollout status} finishes. Pods are
 * named {@code <deployment>-<index>} (there is no ReplicaSet in between); a changed template
 * replaces them all at once; deleting the Deployment deletes its Pods.
 */
public final class ReplicaSets implements AutoCloseable {
  private static final Logger LOG = LoggerFactory.getLogger(ReplicaSets.class);
  static final String TEMPLATE_HASH = "pod-template-hash";

  /** One replica: its Pod's name and, when admission refused the Pod, the refusal's message. */
  public record Replica(String pod, Optional<String> refusal) {}

  private final KubernetesClient client;
  private final BiConsumer<Deployment, String> failedCreate;
  private final Map<String, String> refusals = new ConcurrentHashMap<>();

  /** UIDs of Deployments the informer saw deleted: a retry holding a stale copy syncs nothing. */
  private final Set<String> deleted = ConcurrentHashMap.newKeySet();

  private final SharedIndexInformer<Deployment> deployments;
  private final SharedIndexInformer<Pod> pods;
  private final ScheduledExecutorService retries =
      Executors.newSingleThreadScheduledExecutor(
          r -> {
            Thread t = new Thread(r, "sandbox-replicasets");
            t.setDaemon(true);
            return t;
          });

  /**
   * Starts controlling every Deployment; a Pod admission refuses is reported to {@code
   * failedCreate} with the refusal's message and tried again every {@code retry}.
   */
  public ReplicaSets(
      KubernetesClient client, Duration retry, BiConsumer<Deployment, String> failedCreate) {
    this.client = client;
    this.failedCreate = failedCreate;
    this.deployments =
        client
            .apps()
            .deployments()
            .inAnyNamespace()
            .inform(
                new ResourceEventHandler<>() {
                  @Override
                  public void onAdd(Deployment d) {
                    resync(d);
                  }

                  @Override
                  public void onUpdate(Deployment before, Deployment d) {
                    resync(d);
                  }

                  @Override
                  public void onDelete(Deployment d, boolean unknown) {
                    removed(d);
                  }
                });
    this.pods =
        client
            .pods()
            .inAnyNamespace()
            .inform(
                new ResourceEventHandler<>() {
                  @Override
                  public void onAdd(Pod pod) {
                    owner(pod).ifPresent(ReplicaSets.this::restatus);
                  }

                  @Override
                  public void onUpdate(Pod before, Pod pod) {
                    owner(pod).ifPresent(ReplicaSets.this::restatus);
                  }

                  @Override
                  public void onDelete(Pod pod, boolean unknown) {
                    owner(pod).ifPresent(ReplicaSets.this::resync);
                  }
                });
    retries.scheduleWithFixedDelay(
        () -> deployments.getStore().list().forEach(this::resync),
        retry.toMillis(),
        retry.toMillis(),
        TimeUnit.MILLISECONDS);
  }

  /**
   * Brings {@code deployment}'s Pods to its replicas and template, and its status to its Pods.
   * Returns every replica it should have, with the refusal of each that admission refused.
   */
  public synchronized List<Replica> sync(Deployment deployment) {
    if (deployment.getMetadata().getDeletionTimestamp() != null || gone(deployment)) {
      return List.of();
    }
    int replicas = replicas(deployment);
    String hash = hash(deployment);
    for (Pod pod : owned(deployment)) {
      if (index(deployment, pod) >= replicas
          || !hash.equals(pod.getMetadata().getLabels().get(TEMPLATE_HASH))) {
        delete(pod);
      }
    }
    Map<String, Pod> live = new HashMap<>();
    owned(deployment).forEach(p -> live.put(p.getMetadata().getName(), p));
    List<Replica> result = new ArrayList<>();
    Optional<String> refused = Optional.empty();
    for (int i = 0; i < replicas; i++) {
      String name = deployment.getMetadata().getName() + "-" + i;
      if (live.containsKey(name)) {
        result.add(new Replica(name, Optional.empty()));
        continue;
      }
      Optional<String> refusal = create(deployment, name, hash);
      refusal.ifPresent(message -> failedCreate.accept(deployment, message));
      refused = refused.or(() -> refusal);
      result.add(new Replica(name, refusal));
    }
    refused.ifPresentOrElse(
        message -> refusals.put(deployment.getMetadata().getUid(), message),
        () -> refusals.remove(deployment.getMetadata().getUid()));
    status(deployment);
    return result;
  }

  /**
   * Deletes a deleted Deployment's Pods. Under the same lock as {@link #sync}, and listed from the
   * API server, so a sync that raced the deletion cannot leave a Pod behind.
   */
  private synchronized void removed(Deployment deployment) {
    deleted.add(deployment.getMetadata().getUid());
    refusals.remove(deployment.getMetadata().getUid());
    owned(deployment).forEach(this::delete);
  }

  /**
   * Whether the informer has seen {@code deployment} deleted (a retry may hold a stale copy). One
   * the informer has not seen yet, just created, is not gone.
   */
  private boolean gone(Deployment deployment) {
    return deleted.contains(deployment.getMetadata().getUid());
  }

  private void resync(Deployment deployment) {
    try {
      sync(deployment);
    } catch (RuntimeException e) {
      // Also a closing client's rejected task: the next change or retry syncs again.
      LOG.debug("deployment {} not synced: {}", deployment.getMetadata().getName(), e.getMessage());
    }
  }

  private void restatus(Deployment deployment) {
    try {
      status(deployment);
    } catch (RuntimeException e) {
      LOG.debug(
          "deployment {} status not written: {}",
          deployment.getMetadata().getName(),
          e.getMessage());
    }
  }

  private Optional<String> create(Deployment deployment, String name, String hash) {
    Pod pod =
        new PodBuilder()
            .withMetadata(deployment.getSpec().getTemplate().getMetadata())
            .editMetadata()
            .withName(name)
            .withNamespace(deployment.getMetadata().getNamespace())
            .addToLabels(TEMPLATE_HASH, hash)
            .withOwnerReferences(controller(deployment))
            .endMetadata()
            .withSpec(deployment.getSpec().getTemplate().getSpec())
            .build();
    try {
      client.resource(pod).create();
      return Optional.empty();
    } catch (KubernetesClientException e) {
      if (e.getCode() == 409) {
        return Optional.empty();
      }
      return Optional.of(
          e.getStatus() != null && e.getStatus().getMessage() != null
              ? e.getStatus().getMessage()
              : e.getMessage());
    }
  }

  /**
   * Writes the status the controllers would: the counts, Available and Progressing, and
   * ReplicaFailure while a Pod is refused.
   */
  private synchronized void status(Deployment deployment) {
    DeploymentStatus before =
        Optional.ofNullable(deployment.getStatus()).orElseGet(DeploymentStatus::new);
    DeploymentStatus after = observed(deployment, before);
    if (after.equals(before)) {
      return;
    }
    try {
      client
          .apps()
          .deployments()
          .inNamespace(deployment.getMetadata().getNamespace())
          .withName(deployment.getMetadata().getName())
          .editStatus(
              d -> {
                d.setStatus(after);
                return d;
              });
    } catch (KubernetesClientException e) {
      // Deleted or changed meanwhile: its next event writes the status again.
    }
  }

  /** {@code deployment}'s status as its Pods now make it; conditions keep their times. */
  private DeploymentStatus observed(Deployment deployment, DeploymentStatus before) {
    List<Pod> owned = owned(deployment);
    String hash = hash(deployment);
    int updated =
        (int)
            owned.stream()
                .filter(p -> hash.equals(p.getMetadata().getLabels().get(TEMPLATE_HASH)))
                .count();
    int ready = (int) owned.stream().filter(Pods::ready).count();
    int replicas = replicas(deployment);
    boolean available = ready >= replicas;
    boolean complete = available && updated == replicas && owned.size() == replicas;
    Optional<String> refused = Optional.ofNullable(refusals.get(deployment.getMetadata().getUid()));
    return new DeploymentStatusBuilder()
        .withObservedGeneration(deployment.getMetadata().getGeneration())
        .withReplicas(owned.size())
        .withUpdatedReplicas(updated)
        .withReadyReplicas(ready)
        .withAvailableReplicas(ready)
        .withUnavailableReplicas(replicas > ready ? replicas - ready : null)
        .withConditions(conditions(before, available, complete, refused))
        .build();
  }

  private static List<DeploymentCondition> conditions(
      DeploymentStatus before, boolean available, boolean complete, Optional<String> refused) {
    List<DeploymentCondition> conditions = new ArrayList<>();
    conditions.add(
        condition(
            before,
            "Available",
            available,
            available ? "MinimumReplicasAvailable" : "MinimumReplicasUnavailable",
            available
                ? "Deployment has minimum availability."
                : "Deployment does not have minimum availability."));
    conditions.add(
        condition(
            before,
            "Progressing",
            true,
            complete ? "NewReplicaSetAvailable" : "ReplicaSetUpdated",
            complete ? "ReplicaSet has successfully progressed." : "ReplicaSet is progressing."));
    refused.ifPresent(
        message ->
            conditions.add(condition(before, "ReplicaFailure", true, "FailedCreate", message)));
    return conditions;
  }

  /** A condition, keeping its times when nothing about it changed. */
  private static DeploymentCondition condition(
      DeploymentStatus before, String type, boolean status, String reason, String message) {
    String value = status ? "True" : "False";
    for (DeploymentCondition c : before.getConditions()) {
      if (c.getType().equals(type)
          && value.equals(c.getStatus())
          && reason.equals(c.getReason())
          && message.equals(c.getMessage())) {
        return c;
      }
    }
    String now = Instant.now().truncatedTo(ChronoUnit.SECONDS).toString();
    return new DeploymentConditionBuilder()
        .withType(type)
        .withStatus(value)
        .withReason(reason)
        .withMessage(message)
        .withLastUpdateTime(now)
        .withLastTransitionTime(now)
        .build();
  }

  private List<Pod> owned(Deployment deployment) {
    String uid = deployment.getMetadata().getUid();
    return client
        .pods()
        .inNamespace(deployment.getMetadata().getNamespace())
        .list()
        .getItems()
        .stream()
        .filter(p -> p.getMetadata().getDeletionTimestamp() == null)
        .filter(p -> Owners.controller(p).map(o -> uid.equals(o.getUid())).orElse(false))
        .toList();
  }

  private Optional<Deployment> owner(Pod pod) {
    return Owners.controller(pod)
        .filter(o -> "Deployment".equals(o.getKind()))
        .flatMap(
            o ->
                Optional.ofNullable(
                        deployments
                            .getStore()
                            .getByKey(pod.getMetadata().getNamespace() + "/" + o.getName()))
                    .filter(d -> Objects.equals(o.getUid(), d.getMetadata().getUid())));
  }

  private void delete(Pod pod) {
    try {
      client.resource(pod).delete();
    } catch (KubernetesClientException e) {
      // Already gone.
    }
  }

  private static OwnerReference controller(Deployment deployment) {
    return new OwnerReferenceBuilder()
        .withApiVersion("apps/v1")
        .withKind("Deployment")
        .withName(deployment.getMetadata().getName())
        .withUid(deployment.getMetadata().getUid())
        .withController(true)
        .withBlockOwnerDeletion(true)
        .build();
  }

  private static int replicas(Deployment deployment) {
    return Optional.ofNullable(deployment.getSpec().getReplicas()).orElse(1);
  }

  private static int index(Deployment deployment, Pod pod) {
    String prefix = deployment.getMetadata().getName() + "-";
    String name = pod.getMetadata().getName();
    try {
      return name.startsWith(prefix) ? Integer.parseInt(name.substring(prefix.length())) : -1;
    } catch (NumberFormatException e) {
      return Integer.MAX_VALUE;
    }
  }

  /** The template's identity, as the pod-template-hash label tells Pods of two templates apart. */
  private static String hash(Deployment deployment) {
    return Integer.toHexString(Serialization.asJson(deployment.getSpec().getTemplate()).hashCode());
  }

  @Override
  public void close() {
    retries.shutdownNow();
    deployments.close();
    pods.close();
  }
}
