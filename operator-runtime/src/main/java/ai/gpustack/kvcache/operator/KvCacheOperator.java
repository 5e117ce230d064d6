package ai.gpustack.kvcache.operator;

import ai.gpustack.kvcache.api.Settings;
import ai.gpustack.kvcache.observe.DtypeObserver;
import ai.gpustack.kvcache.observe.FairFetcher;
import ai.gpustack.kvcache.observe.PodProxyFetcher;
import ai.gpustack.kvcache.operator.informers.Informers;
import ai.gpustack.kvcache.operator.informers.SharedCaches;
import ai.gpustack.kvcache.operator.informers.ValueSpecCloner;
import ai.gpustack.kvcache.operator.reconcile.BackendReconciler;
import ai.gpustack.kvcache.operator.reconcile.BindingReconciler;
import ai.gpustack.kvcache.operator.reconcile.ModelDeploymentReconciler;
import ai.gpustack.kvcache.operator.reconcile.PoolReconciler;
import ai.gpustack.kvcache.operator.reconcile.SettingReconciler;
import ai.gpustack.kvcache.operator.render.PodRenderer;
import ai.gpustack.kvcache.operator.status.Events;
import ai.gpustack.kvcache.operator.status.ReplicaObservations;
import ai.gpustack.kvcache.spi.EngineRegistry;
import io.fabric8.kubernetes.api.model.HasMetadata;
import io.fabric8.kubernetes.api.model.authorization.v1.SelfSubjectAccessReview;
import io.fabric8.kubernetes.api.model.authorization.v1.SelfSubjectAccessReviewBuilder;
import io.fabric8.kubernetes.api.model.coordination.v1.Lease;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.KubernetesClientException;
import io.fabric8.kubernetes.client.extended.leaderelection.LeaderCallbacks;
import io.javaoperatorsdk.operator.Operator;
import io.javaoperatorsdk.operator.api.config.ControllerConfigurationOverrider;
import io.javaoperatorsdk.operator.api.config.LeaderElectionConfiguration;
import io.javaoperatorsdk.operator.api.config.LeaderElectionConfigurationBuilder;
import io.javaoperatorsdk.operator.api.reconciler.Reconciler;
import io.javaoperatorsdk.operator.monitoring.micrometer.MicrometerMetrics;
import io.micrometer.prometheusmetrics.PrometheusMeterRegistry;
import java.net.InetSocketAddress;
import java.time.Clock;
import java.time.Duration;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicReference;
import java.util.function.BooleanSupplier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The reference operator: the Java Operator SDK without server-side apply (so a real cluster and
 * the CRUD mock run one code path), leader election on a Lease in the system namespace, Settings
 * created with their defaults, and health and metrics endpoints.
 */
public final class KvCacheOperator implements AutoCloseable {
  public static final String LEASE = "kvcache-operator";

  private static final Logger LOG = LoggerFactory.getLogger(KvCacheOperator.class);

  private final Operator operator;
  private final Optional<HealthServer> health;
  private final Optional<PodProxyFetcher> proxy;
  private final ScheduledExecutorService background;
  private final AtomicBoolean closing;
  private final KubernetesClient client;
  private final Optional<String> leaseIdentity;

  /**
   * How one operator process runs. {@code namespaces} scopes the deployments, Bindings and Pods it
   * reconciles and watches (empty: every namespace); its ServiceAccount then needs the workloads
   * role in those namespaces only.
   */
  public record Options(
      Optional<String> leaseIdentity,
      Duration leaseDuration,
      Optional<InetSocketAddress> health,
      Map<String, String> environment,
      Clock clock,
      boolean observeReplicas,
      LeaseLost onLeaseLost,
      BooleanSupplier alsoReady,
      Set<String> namespaces) {
    /** Every namespace. */
    public Options(
        Optional<String> leaseIdentity,
        Duration leaseDuration,
        Optional<InetSocketAddress> health,
        Map<String, String> environment,
        Clock clock,
        boolean observeReplicas,
        LeaseLost onLeaseLost,
        BooleanSupplier alsoReady) {
      this(
          leaseIdentity,
          leaseDuration,
          health,
          environment,
          clock,
          observeReplicas,
          onLeaseLost,
          alsoReady,
          Set.of());
    }

    /**
     * Leader election as {@code identity}, health on {@code health}, the process environment, what
     * the replicas' engines report read, and reconciling stopped when the lease is lost.
     */
    public static Options defaults(String identity, InetSocketAddress health) {
      return new Options(
          Optional.of(identity),
          Duration.ofSeconds(15),
          Optional.of(health),
          System.getenv(),
          Clock.systemUTC(),
          true,
          LeaseLost.STOP_RECONCILING,
          () -> true);
    }
  }

  /**
   * What a process does once another identity holds the lease it held. Either way it stops acting
   * as the leader: two leaders would both replace replicas.
   */
  public enum LeaseLost {
    /** Stop every controller; the process (an embedding one, a test) carries on. */
    STOP_RECONCILING,
    /**
     * Halt the process at once, with exit code 1 and no shutdown hooks that could still write; a
     * restarted container rejoins as a follower ({@code kvcache run}).
     */
    EXIT
  }

  private KvCacheOperator(
      Operator operator,
      Optional<HealthServer> health,
      Optional<PodProxyFetcher> proxy,
      ScheduledExecutorService background,
      AtomicBoolean closing,
      KubernetesClient client,
      Optional<String> leaseIdentity) {
    this.operator = operator;
    this.health = health;
    this.proxy = proxy;
    this.background = background;
    this.closing = closing;
    this.client = client;
    this.leaseIdentity = leaseIdentity;
  }

  /** Starts reconciling; returns once the operator runs (or waits for its lease). */
  public static KvCacheOperator start(
      KubernetesClient client,
      EngineRegistry engines,
      PrometheusMeterRegistry registry,
      Options options) {
    ScheduledExecutorService background = bootstrapSettings(client, options.environment());
    AtomicBoolean closing = new AtomicBoolean();
    Operator operator = newOperator(client, registry, options, closing);
    Events events = new Events(client);
    Optional<String> notObserving = whyNotObserving(client, options);
    Optional<PodProxyFetcher> proxy =
        notObserving.isEmpty()
            ? Optional.of(
                new PodProxyFetcher(
                    client.getConfiguration(), PodProxyFetcher.DEADLINE, PodProxyFetcher.MAX_BYTES))
            : Optional.empty();
    Optional<ReplicaObservations> observations =
        observations(proxy, engines, registry, options.clock());
    registerReconcilers(operator, engines, events, observations, notObserving, options);
    operator.start();
    Optional<HealthServer> health = startHealth(operator, registry, options);
    return new KvCacheOperator(
        operator, health, proxy, background, closing, client, options.leaseIdentity());
  }

  /** Creates the Settings now, or keeps trying on a daemon thread that {@link #close} stops. */
  private static ScheduledExecutorService bootstrapSettings(
      KubernetesClient client, Map<String, String> environment) {
    ScheduledExecutorService background =
        Executors.newSingleThreadScheduledExecutor(
            r -> {
              Thread t = new Thread(r, "kvcache-settings-bootstrap");
              t.setDaemon(true);
              return t;
            });
    if (!SettingReconciler.bootstrap(client, environment)) {
      retryBootstrap(background, client, environment);
    }
    return background;
  }

  /**
   * The SDK operator, leader-elected when {@code options} name an identity; a lease lost while
   * {@code closing} is our own letting go, not a loss.
   */
  private static Operator newOperator(
      KubernetesClient client,
      PrometheusMeterRegistry registry,
      Options options,
      AtomicBoolean closing) {
    AtomicReference<Operator> started = new AtomicReference<>();
    Operator operator =
        new Operator(
            o -> {
              o.withKubernetesClient(client)
                  .withResourceCloner(new ValueSpecCloner(client.getKubernetesSerialization()))
                  .withUseSSAToPatchPrimaryResource(false)
                  .withSSABasedCreateUpdateMatchForDependentResources(false)
                  .withCloseClientOnStop(false)
                  .withMetrics(MicrometerMetrics.withoutPerResourceMetrics(registry));
              options
                  .leaseIdentity()
                  .ifPresent(
                      id ->
                          o.withLeaderElectionConfiguration(
                              lease(
                                  id,
                                  options.leaseDuration(),
                                  new LeaderCallbacks(
                                      () -> LOG.info("leading as {}", id),
                                      () -> {
                                        if (!closing.get()) {
                                          leaseLost(
                                              id,
                                              options.leaseDuration(),
                                              options.onLeaseLost(),
                                              started.get());
                                        }
                                      },
                                      leader -> LOG.info("the lease is held by {}", leader)))));
            });
    started.set(operator);
    return operator;
  }

  /** Why the engines' reports go unread (--no-observe, or no pods/proxy); empty when read. */
  private static Optional<String> whyNotObserving(KubernetesClient client, Options options) {
    Optional<String> notObserving =
        options.observeReplicas()
            ? proxyRefused(client, options.namespaces())
            : Optional.of("kvcache run --no-observe: the operator reads no engine's report");
    notObserving.ifPresent(why -> LOG.info("not observing the engines: {}", why));
    return notObserving;
  }

  private static Optional<ReplicaObservations> observations(
      Optional<PodProxyFetcher> proxy,
      EngineRegistry engines,
      PrometheusMeterRegistry registry,
      Clock clock) {
    return proxy.map(
        fetcher ->
            new ReplicaObservations(
                    new DtypeObserver(
                        engines,
                        new FairFetcher(fetcher, FairFetcher.LIMIT, FairFetcher.PER_NAMESPACE)),
                    clock)
                .register(registry));
  }

  private static void registerReconcilers(
      Operator operator,
      EngineRegistry engines,
      Events events,
      Optional<ReplicaObservations> observations,
      Optional<String> notObserving,
      Options options) {
    SharedCaches shared = new SharedCaches();
    scoped(
        operator,
        new ModelDeploymentReconciler(
            new PodRenderer(engines),
            events,
            options.clock(),
            observations,
            notObserving.orElse(""),
            shared),
        options.namespaces());
    scoped(
        operator,
        new BindingReconciler(events, options.clock(), observations, shared),
        options.namespaces());
    operator.register(new PoolReconciler(options.clock()));
    operator.register(new BackendReconciler());
    operator.register(new SettingReconciler());
  }

  /** Live once started; ready once every event source is healthy and {@code alsoReady} agrees. */
  private static Optional<HealthServer> startHealth(
      Operator operator, PrometheusMeterRegistry registry, Options options) {
    return options
        .health()
        .map(
            address ->
                HealthServer.start(
                    address,
                    () -> operator.getRuntimeInfo().isStarted(),
                    () ->
                        operator.getRuntimeInfo().isStarted()
                            && operator.getRuntimeInfo().allEventSourcesAreHealthy()
                            && options.alsoReady().getAsBoolean(),
                    registry));
  }

  /**
   * Registers {@code reconciler} for {@code namespaces}, or every namespace when none is named. An
   * all-namespace controller caches its primaries without managedFields ({@link
   * Informers#withoutManagedFields}); a scoped one keeps JOSDK's store, since JOSDK hands one
   * configured store to every namespace's informer and a relist of one would drop the others'.
   */
  private static <P extends HasMetadata> void scoped(
      Operator operator, Reconciler<P> reconciler, Set<String> namespaces) {
    if (namespaces.isEmpty()) {
      operator.register(
          reconciler,
          (ControllerConfigurationOverrider<P> o) ->
              o.withItemStore(Informers.withoutManagedFields()));
    } else {
      operator.register(
          reconciler, (ControllerConfigurationOverrider<P> o) -> o.settingNamespaces(namespaces));
    }
  }

  /**
   * Why the operator may not read the Pod proxy in its scope, asked of the API server itself
   * (SelfSubjectAccessReview: any authenticated identity may ask); empty when it may. Observation
   * is a role of its own, and a cluster without it runs the operator as if with --no-observe.
   */
  static Optional<String> proxyRefused(KubernetesClient client, Set<String> namespaces) {
    for (String namespace : namespaces.isEmpty() ? Set.of("") : namespaces) {
      SelfSubjectAccessReview review =
          new SelfSubjectAccessReviewBuilder()
              .withNewSpec()
              .withNewResourceAttributes()
              .withVerb("get")
              .withResource("pods")
              .withSubresource("proxy")
              .withNamespace(namespace.isEmpty() ? null : namespace)
              .endResourceAttributes()
              .endSpec()
              .build();
      try {
        SelfSubjectAccessReview answer =
            client.authorization().v1().selfSubjectAccessReview().create(review);
        if (answer.getStatus() == null || !Boolean.TRUE.equals(answer.getStatus().getAllowed())) {
          return Optional.of(
              "its ServiceAccount may not get pods/proxy"
                  + (namespace.isEmpty() ? "" : " in " + namespace)
                  + ": bind the ClusterRole kvcache-operator-observe to observe the engines");
        }
      } catch (KubernetesClientException e) {
        return Optional.of("cannot ask whether it may get pods/proxy: HTTP " + e.getCode());
      }
    }
    return Optional.empty();
  }

  /** Settings the API server refused to create are tried again every 5 s until they exist. */
  private static void retryBootstrap(
      ScheduledExecutorService background, KubernetesClient client, Map<String, String> env) {
    background.schedule(
        () -> {
          boolean done;
          try {
            done = SettingReconciler.bootstrap(client, env);
          } catch (KubernetesClientException e) {
            LOG.warn("cannot read the Settings: {}", e.getMessage());
            done = false;
          }
          if (!done) {
            retryBootstrap(background, client, env);
          }
        },
        5,
        TimeUnit.SECONDS);
  }

  private static void leaseLost(
      String identity, Duration duration, LeaseLost action, Operator operator) {
    LOG.error(
        "{} lost the lease {}/{}: another identity holds it, or it was not renewed within {} ms; {}",
        identity,
        Settings.NAMESPACE,
        LEASE,
        renewDeadline(duration).toMillis(),
        action == LeaseLost.EXIT
            ? "exiting (1) so that a restart rejoins as a follower"
            : "stopping every controller");
    if (action == LeaseLost.EXIT) {
      Runtime.getRuntime().halt(1);
    }
    // Not on the elector's own thread: stopping the operator stops the elector, which waits for it.
    Thread stop = new Thread(operator::stop, "kvcache-lease-lost");
    stop.setDaemon(true);
    stop.start();
  }

  /** Two thirds of the lease, as controller-runtime's defaults (10 s of 15 s). */
  private static Duration renewDeadline(Duration lease) {
    return lease.multipliedBy(2).dividedBy(3);
  }

  private static LeaderElectionConfiguration lease(
      String identity, Duration duration, LeaderCallbacks callbacks) {
    return LeaderElectionConfigurationBuilder.aLeaderElectionConfiguration(LEASE)
        .withLeaseNamespace(Settings.NAMESPACE)
        .withIdentity(identity)
        .withLeaseDuration(duration)
        .withRenewDeadline(renewDeadline(duration))
        .withRetryPeriod(duration.dividedBy(7))
        .withLeaderCallbacks(callbacks)
        .withExitOnStopLeading(false)
        .build();
  }

  public boolean ready() {
    return operator.getRuntimeInfo().isStarted()
        && operator.getRuntimeInfo().allEventSourcesAreHealthy();
  }

  public Optional<InetSocketAddress> healthAddress() {
    return health.map(HealthServer::address);
  }

  /** Stops reconciling and lets go of the lease. */
  @Override
  public void close() {
    // Letting go of the lease here is no loss of it.
    closing.set(true);
    background.shutdownNow();
    health.ifPresent(HealthServer::close);
    operator.stop();
    leaseIdentity.ifPresent(this::releaseLease);
    proxy.ifPresent(PodProxyFetcher::close);
  }

  /**
   * Hands the Lease on at a clean stop, once the controllers have stopped and only if this process
   * still holds it: with no holder a standby takes it at its next try, every seventh of the lease,
   * instead of once the lease runs out. The SDK's elector never releases it (client-go's
   * ReleaseOnCancel does the same as this).
   */
  private void releaseLease(String identity) {
    try {
      Lease lease =
          client.resources(Lease.class).inNamespace(Settings.NAMESPACE).withName(LEASE).get();
      if (lease == null || !identity.equals(lease.getSpec().getHolderIdentity())) {
        return;
      }
      lease.getSpec().setHolderIdentity("");
      lease.getSpec().setLeaseDurationSeconds(1);
      // The read's resourceVersion: a Lease taken meanwhile is not overwritten.
      client.resource(lease).update();
      LOG.info("released the lease held as {}", identity);
    } catch (KubernetesClientException e) {
      LOG.warn(
          "the lease was not released ({}): a standby takes it once it runs out", e.getMessage());
    }
  }
}
