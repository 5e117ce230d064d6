package ai.gpustack.kvcache.operator.reconcile;

import ai.gpustack.kvcache.api.Condition;
import ai.gpustack.kvcache.api.ModelDeploymentStatus;
import ai.gpustack.kvcache.api.RoleStatus;
import ai.gpustack.kvcache.api.WorkloadRef;
import ai.gpustack.kvcache.observe.Observation;
import ai.gpustack.kvcache.operator.informers.CacheView;
import ai.gpustack.kvcache.operator.informers.Informers;
import ai.gpustack.kvcache.operator.informers.SharedCaches;
import ai.gpustack.kvcache.operator.render.PodRenderer;
import ai.gpustack.kvcache.operator.render.RenderException;
import ai.gpustack.kvcache.operator.render.Rendering;
import ai.gpustack.kvcache.operator.status.Conditions;
import ai.gpustack.kvcache.operator.status.DeploymentConditions;
import ai.gpustack.kvcache.operator.status.DtypeObservedCondition;
import ai.gpustack.kvcache.operator.status.Events;
import ai.gpustack.kvcache.operator.status.ReplicaObservations;
import ai.gpustack.kvcache.operator.status.StatusWriter;
import ai.gpustack.kvcache.resources.Keys;
import ai.gpustack.kvcache.resources.ModelDeployment;
import ai.gpustack.kvcache.resources.Pods;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.KubernetesClientException;
import io.javaoperatorsdk.operator.api.reconciler.Cleaner;
import io.javaoperatorsdk.operator.api.reconciler.Context;
import io.javaoperatorsdk.operator.api.reconciler.ControllerConfiguration;
import io.javaoperatorsdk.operator.api.reconciler.DeleteControl;
import io.javaoperatorsdk.operator.api.reconciler.EventSourceContext;
import io.javaoperatorsdk.operator.api.reconciler.Reconciler;
import io.javaoperatorsdk.operator.api.reconciler.UpdateControl;
import io.javaoperatorsdk.operator.processing.event.source.EventSource;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.time.temporal.ChronoUnit;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.TreeMap;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.stream.Collectors;
import java.util.stream.Stream;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Keeps a ModelDeployment's replicas at their render: creates missing ordinals, removes surplus
 * ones from the top, and replaces outdated replicas one per role per pass, only while every other
 * replica of the role is Ready. A rollout the engine would reject (the Binding's dtype) is held on
 * the replicas that run. Claims the Binding in its {@code status.usedBy}; the finalizer releases
 * the claim only after the replicas are gone.
 */
@ControllerConfiguration(name = "modeldeployment", finalizerName = Keys.DEPLOYMENT_FINALIZER)
public final class ModelDeploymentReconciler
    implements Reconciler<ModelDeployment>, Cleaner<ModelDeployment> {
  private static final Logger LOG = LoggerFactory.getLogger(ModelDeploymentReconciler.class);

  /**
   * How soon a deployment still moving is looked at again without an event: a safety net, since its
   * replicas' Ready and delete events drive the rollout. At 30 s it fired between replacement steps
   * once the API server stretched them past 30 s: 5 of a roll's 14 reconciles per deployment at
   * 2,000 deployments.
   */
  static final Duration PROGRESS_CHECK = Duration.ofMinutes(5);

  /**
   * How often a deployment's status is written when only its replica counts move. A replacement
   * step moves them twice or more: written each second, counts were three quarters of a roll's
   * status writes (7.5 per deployment against the phase's 2 at 250 deployments); every 30 s, still
   * 4 of 6 at 2,000, where one deployment's roll spans minutes.
   */
  static final Duration COUNTS_EVERY = Duration.ofMinutes(2);

  private final PodRenderer renderer;

  private final Events events;
  private final Clock clock;
  private final Optional<ReplicaObservations> observations;

  /** Why the engines are not read, when {@link #observations} is empty: said in DtypeObserved. */
  private final String notObserving;

  private final SharedCaches shared;

  /**
   * Claims written by this process that the Binding cache does not show yet (Binding UID and
   * deployment). Every deployment of a Binding appends to the same usedBy, so the cache lags behind
   * the writes; without this each reconcile in the lag re-read the whole Binding, a list that grows
   * with the fleet (2.5 reads per deployment at 100, quadratic in bytes). An entry goes once a
   * reconcile sees the claim cached, or when the Binding's usedBy drops claims, so that the
   * reconcile this wakes writes a removed claim again.
   */
  private final Set<String> claimed = ConcurrentHashMap.newKeySet();

  private final Claims claims = new Claims();

  /** When each deployment's status was last written by this process. */
  private final Map<String, Instant> lastStatusWrite = new ConcurrentHashMap<>();

  /**
   * {@code observations} reads what the replicas' engines report, when present; {@code shared} is
   * handed this controller's cache for the others to read, and holds the KVCachePoolBinding
   * controller's injected Pods.
   */
  public ModelDeploymentReconciler(
      PodRenderer renderer,
      Events events,
      Clock clock,
      Optional<ReplicaObservations> observations,
      String notObserving,
      SharedCaches shared) {
    this.renderer = renderer;
    this.events = events;
    this.clock = clock;
    this.observations = observations;
    this.notObserving = notObserving;
    this.shared = shared;
  }

  static WorkloadRef claimOf(ModelDeployment md) {
    return WorkloadRef.of("ModelDeployment", "", md.getMetadata().getName());
  }

  @Override
  public List<EventSource<?, ModelDeployment>> prepareEventSources(
      EventSourceContext<ModelDeployment> context) {
    shared.deploymentsFrom(context.getPrimaryCache());
    return DeploymentEventSources.of(
        context, b -> claimed.removeIf(c -> c.startsWith(b.getMetadata().getUid() + "/")), shared);
  }

  @Override
  public UpdateControl<ModelDeployment> reconcile(
      ModelDeployment md, Context<ModelDeployment> context) {
    KubernetesClient client = context.getClient();
    CacheView view = new CacheView(context, shared);
    Rendering rendering;
    try {
      rendering = renderer.render(md, view);
    } catch (RenderException e) {
      return renderFailed(md, context, e);
    }
    holdClaim(client, md, rendering);
    rendering
        .held()
        .ifPresent(r -> events.warning(md, r.reason(), rendering.heldMessage().orElseThrow()));
    Map<String, List<Pod>> existing =
        replicas(md, context).stream()
            .collect(Collectors.groupingBy(Pods::role, TreeMap::new, Collectors.toList()));
    RolesPass roles = convergeRoles(client, rendering, existing);
    deleteStrays(client, rendering, existing);
    DtypeObserved observed = observeDtype(md, view, existing);
    Optional<Duration> countsPending =
        writeStatus(
            context,
            md,
            nextStatus(md, rendering, view.settings().kvCacheDtypeOwned(), roles, observed));
    Optional<Duration> recheck =
        roles.progressing() && !rendering.isHeld()
            ? Optional.of(PROGRESS_CHECK)
            : observed.recheck();
    return Stream.of(countsPending, recheck)
        .flatMap(Optional::stream)
        .min(Comparator.naturalOrder())
        .map(UpdateControl.<ModelDeployment>noUpdate()::rescheduleAfter)
        .orElse(UpdateControl.noUpdate());
  }

  private UpdateControl<ModelDeployment> renderFailed(
      ModelDeployment md, Context<ModelDeployment> context, RenderException e) {
    events.warning(md, "RenderFailed", e.getMessage());
    writeStatus(
        context,
        md,
        status(md)
            .withPhase("Failed")
            .withConditions(
                Conditions.merge(
                    status(md).conditions(),
                    List.of(Conditions.of("Rendered", false, "RenderFailed", e.getMessage())),
                    now())));
    return UpdateControl.noUpdate();
  }

  /** The deployment's claim on its Binding, written once per Binding and deployment. */
  private void holdClaim(KubernetesClient client, ModelDeployment md, Rendering rendering) {
    rendering
        .binding()
        .ifPresent(
            b -> {
              String claim = b.getMetadata().getUid() + "/" + key(md);
              if (Claims.holds(b, claimOf(md))) {
                claimed.remove(claim);
              } else if (claimed.add(claim)) {
                try {
                  claims.claim(client, b, claimOf(md));
                } catch (RuntimeException e) {
                  claimed.remove(claim);
                  throw e;
                }
              }
            });
  }

  /** Each role's replicas after one convergence pass, and whether any is still moving. */
  private record RolesPass(List<RoleStatus> roles, boolean progressing) {}

  private RolesPass convergeRoles(
      KubernetesClient client, Rendering rendering, Map<String, List<Pod>> existing) {
    List<RoleStatus> roles = new ArrayList<>();
    boolean progressing = false;
    for (Rendering.RolePlan plan : rendering.roles()) {
      List<Pod> pods = existing.getOrDefault(plan.name(), List.of());
      Convergence pass = converge(client, plan, pods, rendering.isHeld());
      progressing |= pass.moving();
      // A replica deleted in this pass is not Ready any more; its terminating does not wake us.
      int ready =
          (int)
              pods.stream()
                  .filter(p -> Pods.ordinal(p) < plan.pods().size())
                  .filter(p -> !pass.deleted().contains(p.getMetadata().getName()))
                  .filter(Pods::ready)
                  .count();
      // Replicas created in this pass are up to date too: counting them now spares the status
      // write their creation events would otherwise cause.
      int updated =
          pass.created()
              + (int)
                  pods.stream()
                      .filter(p -> Pods.ordinal(p) >= 0 && Pods.ordinal(p) < plan.pods().size())
                      .filter(p -> Pods.hash(p).equals(Pods.hash(plan.pods().get(Pods.ordinal(p)))))
                      .count();
      roles.add(
          RoleStatus.builder()
              .name(plan.name())
              .replicas(plan.pods().size())
              .readyReplicas(ready)
              .updatedReplicas(updated)
              .unmanaged(plan.unmanaged())
              .build());
      progressing |= ready < plan.pods().size() || updated < plan.pods().size();
    }
    return new RolesPass(roles, progressing);
  }

  /**
   * Roles no longer in the spec cannot exist (the role set is an identity field), but strays are
   * cleaned up.
   */
  private void deleteStrays(
      KubernetesClient client, Rendering rendering, Map<String, List<Pod>> existing) {
    existing.keySet().stream()
        .filter(role -> rendering.roles().stream().noneMatch(r -> r.name().equals(role)))
        .flatMap(role -> existing.get(role).stream())
        .forEach(p -> delete(client, p));
  }

  /** The DtypeObserved condition of an attached deployment, and when to read its engines again. */
  private record DtypeObserved(Optional<Condition> condition, Optional<Duration> recheck) {}

  private DtypeObserved observeDtype(
      ModelDeployment md, CacheView view, Map<String, List<Pod>> existing) {
    if (md.getSpec().kvCache().isEmpty()) {
      return new DtypeObserved(Optional.empty(), Optional.empty());
    }
    if (observations.isEmpty()) {
      return new DtypeObserved(
          Optional.of(Conditions.unknown(DtypeObservedCondition.TYPE, "NotObserved", notObserving)),
          Optional.empty());
    }
    boolean owned = view.settings().kvCacheDtypeOwned();
    List<Pod> ready = existing.values().stream().flatMap(List::stream).filter(Pods::ready).toList();
    ReplicaObservations.Known known =
        observations.get().observe(key(md), ready, owned, p -> observer(p, md, view));
    // With the Setting off the Binding does not govern the replicas' dtype: no warning then.
    for (Pod pod : owned ? ready : List.<Pod>of()) {
      if (observations.get().firstDiffers(pod)) {
        events.warning(
            md,
            "DtypeDiffers",
            "replica "
                + pod.getMetadata().getName()
                + " runs another KV-cache dtype than its"
                + " Binding declares: see the DtypeObserved condition");
      }
    }
    return new DtypeObserved(
        Optional.of(
            DtypeObservedCondition.of(
                known,
                ready.size(),
                owned,
                Conditions.find(status(md).conditions(), DtypeObservedCondition.TYPE))),
        known.recheck());
  }

  private ModelDeploymentStatus nextStatus(
      ModelDeployment md,
      Rendering rendering,
      boolean dtypeOwned,
      RolesPass roles,
      DtypeObserved observed) {
    List<Condition> conditions = new ArrayList<>(DeploymentConditions.of(rendering, dtypeOwned));
    observed.condition().ifPresent(conditions::add);
    String phase = rendering.isHeld() ? "Held" : roles.progressing() ? "Progressing" : "Ready";
    return status(md)
        .withObservedGeneration(Optional.ofNullable(md.getMetadata().getGeneration()))
        .withPhase(phase)
        .withKvCache(rendering.kvCache().or(() -> status(md).kvCache()))
        .withRoles(roles.roles())
        .withConditions(Conditions.merge(status(md).conditions(), conditions, now()));
  }

  /**
   * Writes {@code next} unless it only moves replica counts within {@link #COUNTS_EVERY} of this
   * deployment's last status write: then it returns when to write them. Replicas turn Ready in
   * bursts; a write per replica was most of the operator's API requests in a cold start. Phase and
   * condition changes are written at once.
   */
  private Optional<Duration> writeStatus(
      Context<ModelDeployment> context, ModelDeployment md, ModelDeploymentStatus next) {
    ModelDeploymentStatus current = md.getStatus();
    if (next.equals(current)) {
      return Optional.empty();
    }
    Instant now = clock.instant();
    Instant last = lastStatusWrite.get(key(md));
    if (current != null
        && next.withRoles(current.roles()).equals(current)
        && last != null
        && now.isBefore(last.plus(COUNTS_EVERY))) {
      return Optional.of(Duration.between(now, last.plus(COUNTS_EVERY)));
    }
    StatusWriter.write(context.getClient(), md, current, next, Set.of());
    lastStatusWrite.put(key(md), now);
    return Optional.empty();
  }

  /**
   * What one pass over a role did: whether anything is still moving, how many it created and the
   * names of those it deleted.
   */
  private record Convergence(boolean moving, int created, Set<String> deleted) {}

  /** Carries out one role's {@link Rollout}. */
  private Convergence converge(
      KubernetesClient client, Rendering.RolePlan plan, List<Pod> pods, boolean held) {
    Rollout rollout = Rollout.plan(plan.pods(), pods, held);
    Set<String> deleted = new HashSet<>();
    rollout.deletions().forEach(p -> delete(client, p));
    rollout.deletions().forEach(p -> deleted.add(p.getMetadata().getName()));
    int created = (int) rollout.creations().stream().filter(p -> create(client, p)).count();
    rollout
        .replacement()
        .ifPresent(
            old -> {
              LOG.info(
                  "replacing {}/{}: its pod-spec hash is outdated",
                  old.getMetadata().getNamespace(),
                  old.getMetadata().getName());
              // Its replacement is created when its delete event comes: a bound Pod terminates
              // first, and a create meanwhile is refused (409) by the API server.
              delete(client, old);
              deleted.add(old.getMetadata().getName());
            });
    return new Convergence(rollout.moving(), created, deleted);
  }

  /**
   * Creates {@code pod}; false where it exists already, or where its namespace is being deleted
   * (the deployment goes with it, so there is nothing to retry or report).
   */
  private static boolean create(KubernetesClient client, Pod pod) {
    try {
      client.pods().inNamespace(pod.getMetadata().getNamespace()).resource(pod).create();
      return true;
    } catch (KubernetesClientException e) {
      if (e.getCode() != 409 && !namespaceTerminating(e)) {
        throw e;
      }
      return false;
    }
  }

  /** The NamespaceLifecycle admission plugin's refusal: a 403 carrying this cause. */
  static boolean namespaceTerminating(KubernetesClientException e) {
    return e.getCode() == 403
        && e.getStatus() != null
        && e.getStatus().getDetails() != null
        && e.getStatus().getDetails().getCauses().stream()
            .anyMatch(c -> "NamespaceTerminating".equals(c.getReason()));
  }

  private static void delete(KubernetesClient client, Pod pod) {
    if (pod.getMetadata().getDeletionTimestamp() == null) {
      client
          .pods()
          .inNamespace(pod.getMetadata().getNamespace())
          .withName(pod.getMetadata().getName())
          .delete();
    }
  }

  /** {@code md}'s replicas in the informer cache. */
  private static List<Pod> replicas(ModelDeployment md, Context<ModelDeployment> context) {
    return Informers.owned(
        context,
        DeploymentEventSources.REPLICAS,
        md.getMetadata().getNamespace(),
        md.getMetadata().getName());
  }

  private CompletableFuture<Observation> observer(Pod pod, ModelDeployment md, CacheView view) {
    return observations.orElseThrow().observer().managed(md, pod, view);
  }

  private static String key(ModelDeployment md) {
    return "ModelDeployment/" + md.getMetadata().getNamespace() + "/" + md.getMetadata().getName();
  }

  @Override
  public DeleteControl cleanup(ModelDeployment md, Context<ModelDeployment> context) {
    observations.ifPresent(o -> o.observe(key(md), List.of(), true, p -> null));
    List<Pod> pods = replicas(md, context);
    if (!pods.isEmpty()) {
      pods.forEach(p -> delete(context.getClient(), p));
      return DeleteControl.noFinalizerRemoval().rescheduleAfter(Duration.ofSeconds(1));
    }
    md.getSpec()
        .kvCache()
        .ifPresent(
            k ->
                claims.release(
                    context.getClient(),
                    md.getMetadata().getNamespace(),
                    k.poolRef().name(),
                    claimOf(md)));
    claimed.removeIf(c -> c.endsWith("/" + key(md)));
    renderer.forget(md);
    lastStatusWrite.remove(key(md));
    return DeleteControl.defaultDelete();
  }

  private static ModelDeploymentStatus status(ModelDeployment md) {
    return md.getStatus() == null ? ModelDeploymentStatus.builder().build() : md.getStatus();
  }

  private String now() {
    return Instant.now(clock).truncatedTo(ChronoUnit.SECONDS).toString();
  }
}
