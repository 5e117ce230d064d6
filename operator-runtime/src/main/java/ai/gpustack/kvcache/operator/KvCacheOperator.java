package ai.gpustack.kvcache.operator;

import ai.gpustack.kvcache.api.Settings;
import ai.gpustack.kvcache.observe.DtypeObserver;
import ai.gpustack.kvcache.observe.PodProxyFetcher;
import ai.gpustack.kvcache.operator.reconcile.BackendReconciler;
import ai.gpustack.kvcache.operator.reconcile.BindingReconciler;
import ai.gpustack.kvcache.operator.reconcile.Events;
import ai.gpustack.kvcache.operator.reconcile.ModelDeploymentReconciler;
import ai.gpustack.kvcache.operator.reconcile.PoolReconciler;
import ai.gpustack.kvcache.operator.reconcile.ReplicaObservations;
import ai.gpustack.kvcache.operator.reconcile.SettingReconciler;
import ai.gpustack.kvcache.operator.render.PodRenderer;
import ai.gpustack.kvcache.spi.EngineRegistry;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.javaoperatorsdk.operator.Operator;
import io.javaoperatorsdk.operator.api.config.LeaderElectionConfiguration;
import io.javaoperatorsdk.operator.api.config.LeaderElectionConfigurationBuilder;
import io.javaoperatorsdk.operator.monitoring.micrometer.MicrometerMetrics;
import io.micrometer.prometheusmetrics.PrometheusMeterRegistry;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.InetSocketAddress;
import java.time.Clock;
import java.time.Duration;
import java.util.Map;
import java.util.Optional;

/**
 * The reference operator: the Java Operator SDK without server-side apply (so a real cluster and
 * the CRUD mock run one code path), leader election on a Lease in the system namespace, Settings
 * created with their defaults, and health and metrics endpoints.
 */
public final class KvCacheOperator implements AutoCloseable {
  public static final String LEASE = "kvcache-operator";

  /** Reading one replica's report: a short timeout, a cap on the answer, four at a time. */
  static final Duration OBSERVE_TIMEOUT = Duration.ofSeconds(5);

  static final int OBSERVE_MAX_BYTES = 8 << 20;
  static final int OBSERVERS = 4;

  private final Operator operator;
  private final Optional<HealthServer> health;
  private final Optional<ReplicaObservations> observations;

  /** How one operator process runs. */
  public record Options(
      Optional<String> leaseIdentity,
      Duration leaseDuration,
      Optional<InetSocketAddress> health,
      Map<String, String> environment,
      Clock clock,
      boolean observeReplicas) {
    /**
     * Leader election as {@code identity}, health on {@code health}, the process environment, and
     * what the replicas' engines report read.
     */
    public static Options defaults(String identity, InetSocketAddress health) {
      return new Options(
          Optional.of(identity),
          Duration.ofSeconds(15),
          Optional.of(health),
          System.getenv(),
          Clock.systemUTC(),
          true);
    }
  }

  private KvCacheOperator(
      Operator operator,
      Optional<HealthServer> health,
      Optional<ReplicaObservations> observations) {
    this.operator = operator;
    this.health = health;
    this.observations = observations;
  }

  /** Starts reconciling; returns once the operator runs (or waits for its lease). */
  public static KvCacheOperator start(
      KubernetesClient client,
      EngineRegistry engines,
      PrometheusMeterRegistry registry,
      Options options) {
    SettingReconciler.bootstrap(client, options.environment());
    Operator operator =
        new Operator(
            o -> {
              o.withKubernetesClient(client)
                  .withUseSSAToPatchPrimaryResource(false)
                  .withSSABasedCreateUpdateMatchForDependentResources(false)
                  .withCloseClientOnStop(false)
                  .withMetrics(MicrometerMetrics.withoutPerResourceMetrics(registry));
              options
                  .leaseIdentity()
                  .ifPresent(
                      id -> o.withLeaderElectionConfiguration(lease(id, options.leaseDuration())));
            });
    Events events = new Events(client);
    Optional<ReplicaObservations> observations =
        options.observeReplicas()
            ? Optional.of(
                new ReplicaObservations(
                        new DtypeObserver(
                            engines,
                            new PodProxyFetcher(client, OBSERVE_TIMEOUT, OBSERVE_MAX_BYTES)),
                        OBSERVERS,
                        options.clock())
                    .register(registry))
            : Optional.empty();
    operator.register(
        new ModelDeploymentReconciler(
            new PodRenderer(engines), events, options.clock(), observations));
    operator.register(new BindingReconciler(events, options.clock(), observations));
    operator.register(new PoolReconciler(options.clock()));
    operator.register(new BackendReconciler());
    operator.register(new SettingReconciler());
    operator.start();
    Optional<HealthServer> health =
        options
            .health()
            .map(
                address -> {
                  try {
                    return HealthServer.start(
                        address,
                        () -> operator.getRuntimeInfo().isStarted(),
                        () ->
                            operator.getRuntimeInfo().isStarted()
                                && operator.getRuntimeInfo().allEventSourcesAreHealthy(),
                        registry);
                  } catch (IOException e) {
                    throw new UncheckedIOException("cannot listen on " + address, e);
                  }
                });
    return new KvCacheOperator(operator, health, observations);
  }

  private static LeaderElectionConfiguration lease(String identity, Duration duration) {
    return LeaderElectionConfigurationBuilder.aLeaderElectionConfiguration(LEASE)
        .withLeaseNamespace(Settings.NAMESPACE)
        .withIdentity(identity)
        .withLeaseDuration(duration)
        .withRenewDeadline(duration.multipliedBy(2).dividedBy(3))
        .withRetryPeriod(duration.dividedBy(7))
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
    health.ifPresent(HealthServer::close);
    operator.stop();
    observations.ifPresent(ReplicaObservations::close);
  }
}
