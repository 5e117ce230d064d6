package ai.gpustack.kvcache.operator.reconcile;

import static ai.gpustack.kvcache.api.Quoting.quote;

import ai.gpustack.kvcache.api.Condition;
import ai.gpustack.kvcache.api.KVCachePoolBindingStatus;
import ai.gpustack.kvcache.api.WorkloadRef;
import ai.gpustack.kvcache.operator.informers.CacheView;
import ai.gpustack.kvcache.operator.informers.Informers;
import ai.gpustack.kvcache.operator.informers.SharedCaches;
import ai.gpustack.kvcache.operator.status.Conditions;
import ai.gpustack.kvcache.operator.status.Events;
import ai.gpustack.kvcache.operator.status.ReplicaObservations;
import ai.gpustack.kvcache.operator.status.StatusWriter;
import ai.gpustack.kvcache.resources.KVCacheBackend;
import ai.gpustack.kvcache.resources.KVCachePool;
import ai.gpustack.kvcache.resources.KVCachePoolBinding;
import ai.gpustack.kvcache.resources.Keys;
import ai.gpustack.kvcache.resources.Pods;
import ai.gpustack.kvcache.resources.Setting;
import io.fabric8.kubernetes.api.model.HasMetadata;
import io.fabric8.kubernetes.api.model.Pod;
import io.javaoperatorsdk.operator.api.reconciler.Cleaner;
import io.javaoperatorsdk.operator.api.reconciler.Context;
import io.javaoperatorsdk.operator.api.reconciler.ControllerConfiguration;
import io.javaoperatorsdk.operator.api.reconciler.DeleteControl;
import io.javaoperatorsdk.operator.api.reconciler.EventSourceContext;
import io.javaoperatorsdk.operator.api.reconciler.Reconciler;
import io.javaoperatorsdk.operator.api.reconciler.UpdateControl;
import io.javaoperatorsdk.operator.processing.event.ResourceID;
import io.javaoperatorsdk.operator.processing.event.source.EventSource;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.time.temporal.ChronoUnit;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import java.util.Optional;
import java.util.Set;
import java.util.stream.Collectors;
import java.util.stream.Stream;

/**
 * A Binding's phase and conditions, the injection audit, and its deletion: the finalizer holds it
 * while any ModelDeployment (its {@code status.usedBy}) or injected Pod still uses it. Status
 * changes made by the workloads wake it, so it is not generation-aware.
 */
@ControllerConfiguration(
    name = "kvcachepoolbinding",
    finalizerName = Keys.BINDING_FINALIZER,
    generationAwareEventProcessing = false)
public final class BindingReconciler
    implements Reconciler<KVCachePoolBinding>, Cleaner<KVCachePoolBinding> {
  public static final String DOMAIN_EXCLUSIVE = "DomainExclusive";
  public static final String RELEASABLE = "Releasable";
  public static final String INJECTION_RECORDED = "InjectionRecorded";
  static final Duration HELD_RECHECK = Duration.ofSeconds(10);

  /** The workloads write {@code status.usedBy}; this reconciler never does. */
  private static final Set<String> WORKLOADS_OWN = Set.of("usedBy");

  private final Events events;
  private final Clock clock;
  private final Optional<ReplicaObservations> observations;
  private final SharedCaches shared;

  /**
   * {@code observations} reads what injected Pods' engines report, when present; {@code shared}
   * holds the ModelDeployment controller's cache, registered beside this one, and is handed this
   * controller's injected Pods.
   */
  public BindingReconciler(
      Events events, Clock clock, Optional<ReplicaObservations> observations, SharedCaches shared) {
    this.events = events;
    this.clock = clock;
    this.observations = observations;
    this.shared = shared;
  }

  @Override
  public List<EventSource<?, KVCachePoolBinding>> prepareEventSources(
      EventSourceContext<KVCachePoolBinding> context) {
    // An injected Pod matters here while it lacks its injection record (the audit), while it is
    // Ready (the engine's report; a force-deleted one leaves Ready), and gone, to a Binding being
    // deleted (it held it). Waking on every creation, status write and deletion scanned every
    // opted-in Pod each time.
    List<EventSource<?, KVCachePoolBinding>> sources =
        new ArrayList<>(
            Informers.injectedPods(
                context,
                p -> bindingOf(p).map(Set::of).orElse(Set.of()),
                config ->
                    config
                        .withOnAddFilter(p -> !Pods.injectionRecorded(p) || Pods.ready(p))
                        .withOnUpdateFilter(
                            (after, before) ->
                                Pods.injectionRecorded(after) != Pods.injectionRecorded(before)
                                    || Pods.ready(after) != Pods.ready(before))
                        .withOnDeleteFilter(
                            (p, stateUnknown) ->
                                stateUnknown
                                    || !Pods.injectionRecorded(p)
                                    || Pods.reportedReady(p)
                                    || bindingOf(p)
                                        .flatMap(b -> context.getPrimaryCache().get(b))
                                        .map(HasMetadata::isMarkedForDeletion)
                                        .orElse(false)),
                shared));
    sources.addAll(
        List.of(
            Informers.watch(
                KVCachePool.class,
                context,
                p ->
                    context
                        .getPrimaryCache()
                        .list()
                        .filter(
                            b ->
                                b.getSpec() != null
                                    && b.getSpec()
                                        .poolRef()
                                        .name()
                                        .equals(p.getMetadata().getName()))),
            // Read, never woken by, when an injected Pod's report is resolved: the Settings in
            // force and the backend (the store endpoint); the domain's deployments (its formats)
            // come from the ModelDeployment controller's cache.
            Informers.everything(Setting.class, context),
            Informers.watch(KVCacheBackend.class, context, b -> Stream.empty(), (a, b) -> false)));
    return sources;
  }

  @Override
  public UpdateControl<KVCachePoolBinding> reconcile(
      KVCachePoolBinding binding, Context<KVCachePoolBinding> context) {
    KVCachePoolBindingStatus current = status(binding);
    CacheView view = new CacheView(context, shared);
    List<Condition> wanted = new ArrayList<>();
    Optional<KVCachePool> pool = view.pool(binding.getSpec().poolRef().name());
    String phase;
    String message;
    if (pool.isEmpty()) {
      phase = "Provisioning";
      message = "KVCachePool " + quote(binding.getSpec().poolRef().name()) + " does not exist";
    } else if (pool.get().getStatus() == null
        || pool.get().getStatus().clientEndpoint().isEmpty()) {
      phase = "Provisioning";
      message =
          "KVCachePool "
              + quote(binding.getSpec().poolRef().name())
              + " has not published its client endpoint";
    } else {
      phase = "Ready";
      message =
          "domain "
              + quote(binding.getSpec().domain().name())
              + " on "
              + pool.get().getStatus().clientEndpoint().get();
    }
    wanted.add(exclusive(binding, context, pool));
    List<Pod> optedIn = optedIn(binding, context);
    wanted.add(audit(binding, optedIn));
    KVCachePoolBindingStatus next =
        current
            .withPhase(phase)
            .withPhaseMessage(message)
            .withConditions(Conditions.merge(current.conditions(), wanted, now()));
    if (!next.equals(binding.getStatus())) {
      StatusWriter.write(context.getClient(), binding, binding.getStatus(), next, WORKLOADS_OWN);
    }
    Optional<Duration> reading =
        observations.flatMap(o -> observeInjected(o, binding, optedIn, view));
    UpdateControl<KVCachePoolBinding> control = UpdateControl.noUpdate();
    return reading.map(control::rescheduleAfter).orElse(control);
  }

  /**
   * The injection audit's second half: what each Ready injected Pod's engine reports, a Warning
   * Event on the Pod when it differs from the Binding. Returns when to look again, if a read is
   * under way or due.
   */
  private Optional<Duration> observeInjected(
      ReplicaObservations o, KVCachePoolBinding binding, List<Pod> optedIn, CacheView view) {
    List<Pod> ready = optedIn.stream().filter(Pods::injectionRecorded).filter(Pods::ready).toList();
    ReplicaObservations.Known known =
        o.observe(
            "KVCachePoolBinding/"
                + binding.getMetadata().getNamespace()
                + "/"
                + binding.getMetadata().getName(),
            ready,
            view.settings().kvCacheDtypeOwned(),
            p -> o.observer().injected(p, view));
    for (Pod pod : ready) {
      if (o.firstDiffers(pod)) {
        known.observations().stream()
            .filter(x -> x.pod().equals(pod.getMetadata().getName()))
            .findFirst()
            .ifPresent(
                x ->
                    events.warning(
                        pod,
                        "DtypeDiffers",
                        "its engine reports "
                            + quote(x.observedDtype().orElse(""), 64)
                            + " where KVCachePoolBinding "
                            + quote(binding.getMetadata().getName())
                            + " declares "
                            + quote(x.bindingDtype(), 64)
                            + " (read "
                            + x.source()
                            + ")"));
      }
    }
    return known.recheck();
  }

  /**
   * The reconcile-time backstop for racing creates: another Binding on the same backend holding the
   * name.
   */
  private static Condition exclusive(
      KVCachePoolBinding binding, Context<KVCachePoolBinding> context, Optional<KVCachePool> pool) {
    String backend = pool.flatMap(p -> p.getSpec().backends().stream().findFirst()).orElse(null);
    CacheView view = new CacheView(context);
    List<KVCachePoolBinding> others =
        context
            .getPrimaryCache()
            .list()
            .filter(o -> !ResourceID.fromResource(o).equals(ResourceID.fromResource(binding)))
            .filter(
                o ->
                    o.getSpec() != null
                        && o.getSpec().domain().name().equals(binding.getSpec().domain().name()))
            .filter(
                o ->
                    backend != null
                        && view.pool(o.getSpec().poolRef().name())
                            .map(p -> p.getSpec().backends().contains(backend))
                            .orElse(false))
            .toList();
    return others.isEmpty()
        ? Conditions.of(
            DOMAIN_EXCLUSIVE,
            true,
            "Exclusive",
            "no other Binding on backend "
                + quote(String.valueOf(backend))
                + " claims domain "
                + quote(binding.getSpec().domain().name()))
        : Conditions.of(
            DOMAIN_EXCLUSIVE,
            false,
            "DomainClaimedByMultipleBindings",
            "domain "
                + quote(binding.getSpec().domain().name())
                + " is also claimed by "
                + claimants(binding.getMetadata().getNamespace(), others));
  }

  /**
   * The other claimants as {@code binding}'s namespace may read them: those in it by name, those in
   * other namespaces only counted (a status is a tenant's to read).
   */
  private static String claimants(String namespace, List<KVCachePoolBinding> others) {
    List<String> parts =
        new ArrayList<>(
            others.stream()
                .filter(o -> Objects.equals(o.getMetadata().getNamespace(), namespace))
                .map(o -> namespace + "/" + o.getMetadata().getName())
                .sorted()
                .toList());
    long elsewhere = others.size() - parts.size();
    if (elsewhere > 0) {
      parts.add(elsewhere + (elsewhere == 1 ? " Binding" : " Bindings") + " in another namespace");
    }
    return String.join(", ", parts);
  }

  /**
   * Pods opted into injection through this Binding but carrying no record: the webhook never saw
   * them.
   */
  private Condition audit(KVCachePoolBinding binding, List<Pod> optedIn) {
    List<Pod> missed = optedIn.stream().filter(p -> !Pods.injectionRecorded(p)).toList();
    if (missed.isEmpty()) {
      return Conditions.of(
          INJECTION_RECORDED,
          true,
          "Recorded",
          "every Pod opted in through this Binding was injected");
    }
    String names =
        missed.stream()
            .map(p -> p.getMetadata().getName())
            .sorted()
            .collect(Collectors.joining(", "));
    for (Pod p : missed) {
      events.warning(
          p,
          "NotInjected",
          "Pod opted into KV cache injection through KVCachePoolBinding "
              + quote(binding.getMetadata().getName())
              + " but carries no injection record: the webhook was down or not registered when it was created; recreate it");
    }
    return Conditions.of(
        INJECTION_RECORDED,
        false,
        "PodsNotInjected",
        "opted in but not injected (the webhook was down or unregistered): " + names);
  }

  /** The Binding an injected Pod names. */
  private static Optional<ResourceID> bindingOf(Pod pod) {
    return Pods.annotation(pod, Keys.BINDING)
        .map(b -> new ResourceID(b, pod.getMetadata().getNamespace()));
  }

  /** The Pods opted into injection through {@code binding}. */
  private static List<Pod> optedIn(
      KVCachePoolBinding binding, Context<KVCachePoolBinding> context) {
    return Informers.owned(
        context,
        Informers.INJECTED_PODS,
        binding.getMetadata().getNamespace(),
        binding.getMetadata().getName());
  }

  @Override
  public DeleteControl cleanup(KVCachePoolBinding binding, Context<KVCachePoolBinding> context) {
    List<String> holders = new ArrayList<>();
    status(binding).usedBy().stream().map(WorkloadRef::display).forEach(holders::add);
    optedIn(binding, context).stream()
        .filter(Pods::injectionRecorded)
        .map(p -> "Pod/" + p.getMetadata().getName())
        .forEach(holders::add);
    if (holders.isEmpty()) {
      return DeleteControl.defaultDelete();
    }
    KVCachePoolBindingStatus current = status(binding);
    Condition held =
        Conditions.of(
            RELEASABLE,
            false,
            "HeldByWorkloads",
            "held by "
                + String.join(", ", holders)
                + "; deletion completes once none uses this Binding");
    List<Condition> conditions =
        new ArrayList<>(
            current.conditions().stream().filter(c -> !c.type().equals(RELEASABLE)).toList());
    conditions.addAll(Conditions.merge(current.conditions(), List.of(held), now()));
    KVCachePoolBindingStatus next =
        current
            .withPhase("Deleting")
            .withPhaseMessage("held by " + String.join(", ", holders))
            .withConditions(conditions);
    if (!next.equals(binding.getStatus())) {
      StatusWriter.write(context.getClient(), binding, binding.getStatus(), next, WORKLOADS_OWN);
    }
    return DeleteControl.noFinalizerRemoval().rescheduleAfter(HELD_RECHECK);
  }

  private static KVCachePoolBindingStatus status(KVCachePoolBinding b) {
    return b.getStatus() == null ? KVCachePoolBindingStatus.builder().build() : b.getStatus();
  }

  private String now() {
    return Instant.now(clock).truncatedTo(ChronoUnit.SECONDS).toString();
  }
}
