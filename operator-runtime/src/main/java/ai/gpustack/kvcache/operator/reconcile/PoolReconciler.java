package ai.gpustack.kvcache.operator.reconcile;

import static ai.gpustack.kvcache.api.Quoting.quote;

import ai.gpustack.kvcache.api.Condition;
import ai.gpustack.kvcache.api.KVCachePoolStatus;
import ai.gpustack.kvcache.api.NamespacedName;
import ai.gpustack.kvcache.api.PoolDomain;
import ai.gpustack.kvcache.api.WorkloadRef;
import ai.gpustack.kvcache.operator.informers.CacheView;
import ai.gpustack.kvcache.operator.informers.Informers;
import ai.gpustack.kvcache.operator.status.Conditions;
import ai.gpustack.kvcache.operator.status.StatusWriter;
import ai.gpustack.kvcache.resources.KVCacheBackend;
import ai.gpustack.kvcache.resources.KVCachePool;
import ai.gpustack.kvcache.resources.KVCachePoolBinding;
import ai.gpustack.kvcache.resources.Quantities;
import io.javaoperatorsdk.operator.api.reconciler.Context;
import io.javaoperatorsdk.operator.api.reconciler.ControllerConfiguration;
import io.javaoperatorsdk.operator.api.reconciler.EventSourceContext;
import io.javaoperatorsdk.operator.api.reconciler.Reconciler;
import io.javaoperatorsdk.operator.api.reconciler.UpdateControl;
import io.javaoperatorsdk.operator.processing.event.source.EventSource;
import java.math.BigDecimal;
import java.time.Clock;
import java.time.Instant;
import java.time.temporal.ChronoUnit;
import java.util.Comparator;
import java.util.List;
import java.util.Optional;
import java.util.Set;

/**
 * A pool's status: the client endpoint echoed from its backend, each Binding's domain (block size
 * and dtype echoed), the Bindings holding it, and whether their ceilings fit its total.
 */
@ControllerConfiguration(name = "kvcachepool")
public final class PoolReconciler implements Reconciler<KVCachePool> {
  public static final String BACKEND_RESOLVED = "BackendResolved";
  public static final String QUOTA_WITHIN_TOTAL = "QuotaWithinTotal";

  private final Clock clock;

  public PoolReconciler(Clock clock) {
    this.clock = clock;
  }

  @Override
  public List<EventSource<?, KVCachePool>> prepareEventSources(
      EventSourceContext<KVCachePool> context) {
    return List.of(
        Informers.watch(
            KVCachePoolBinding.class,
            context,
            b ->
                context
                    .getPrimaryCache()
                    .list()
                    .filter(
                        p ->
                            b.getSpec() != null
                                && p.getMetadata().getName().equals(b.getSpec().poolRef().name()))),
        Informers.watch(
            KVCacheBackend.class,
            context,
            b ->
                context
                    .getPrimaryCache()
                    .list()
                    .filter(
                        p ->
                            p.getSpec() != null
                                && p.getSpec().backends().contains(b.getMetadata().getName()))));
  }

  @Override
  public UpdateControl<KVCachePool> reconcile(KVCachePool pool, Context<KVCachePool> context) {
    CacheView view = new CacheView(context);
    KVCachePoolStatus next = nextStatus(pool, view);
    if (!next.equals(pool.getStatus())) {
      StatusWriter.write(context.getClient(), pool, pool.getStatus(), next, Set.of());
    }
    return UpdateControl.noUpdate();
  }

  /** Error without a resolved backend, Degraded with the ceilings above the total, else Ready. */
  private KVCachePoolStatus nextStatus(KVCachePool pool, CacheView view) {
    String backendName = pool.getSpec().backends().stream().findFirst().orElse("");
    Optional<String> endpoint = clientEndpoint(view, backendName);
    List<KVCachePoolBinding> bindings = bindingsOf(pool, view);
    BigDecimal ceilings = ceilings(bindings);
    Optional<BigDecimal> total = Quantities.amount(pool.getSpec().quota().total());
    boolean over = total.isPresent() && ceilings.compareTo(total.get()) > 0;
    KVCachePoolStatus current =
        pool.getStatus() == null ? KVCachePoolStatus.builder().build() : pool.getStatus();
    List<Condition> wanted =
        List.of(backendResolved(backendName, endpoint), quotaWithinTotal(pool, ceilings, over));
    return current
        .withPhase(endpoint.isEmpty() ? "Error" : over ? "Degraded" : "Ready")
        .withClientEndpoint(endpoint)
        .withDomains(domains(bindings))
        .withUsedBy(usedBy(bindings))
        .withConditions(Conditions.merge(current.conditions(), wanted, now()));
  }

  /** The client endpoint of the pool's first backend, when it exists and names one. */
  private static Optional<String> clientEndpoint(CacheView view, String backendName) {
    return view.backend(backendName)
        .flatMap(b -> b.getSpec().connection().external())
        .map(e -> e.clientEndpoint());
  }

  private static Condition backendResolved(String backendName, Optional<String> endpoint) {
    return endpoint.isPresent()
        ? Conditions.of(
            BACKEND_RESOLVED,
            true,
            "Resolved",
            "KVCacheBackend " + quote(backendName) + " serves " + endpoint.get())
        : Conditions.of(
            BACKEND_RESOLVED,
            false,
            "BackendNotFound",
            "KVCacheBackend " + quote(backendName) + " does not exist or names no endpoint");
  }

  /** The Bindings naming the pool, by namespace and then name. */
  private static List<KVCachePoolBinding> bindingsOf(KVCachePool pool, CacheView view) {
    return view.bindings().stream()
        .filter(
            b ->
                b.getSpec() != null
                    && b.getSpec().poolRef().name().equals(pool.getMetadata().getName()))
        .sorted(
            Comparator.comparing((KVCachePoolBinding b) -> b.getMetadata().getNamespace())
                .thenComparing(b -> b.getMetadata().getName()))
        .toList();
  }

  private static List<PoolDomain> domains(List<KVCachePoolBinding> bindings) {
    return bindings.stream()
        .map(
            b ->
                PoolDomain.builder()
                    .name(b.getSpec().domain().name())
                    .binding(
                        NamespacedName.of(
                            b.getMetadata().getNamespace(), b.getMetadata().getName()))
                    .blockSize(b.getSpec().domain().blockSize())
                    .dtype(b.getSpec().domain().dtype())
                    .build())
        .toList();
  }

  private static List<WorkloadRef> usedBy(List<KVCachePoolBinding> bindings) {
    return bindings.stream()
        .map(
            b ->
                WorkloadRef.of(
                    "KVCachePoolBinding",
                    b.getMetadata().getNamespace(),
                    b.getMetadata().getName()))
        .toList();
  }

  /** The Bindings' ceilings in bytes, summed; a ceiling that is no amount counts as none. */
  private static BigDecimal ceilings(List<KVCachePoolBinding> bindings) {
    return bindings.stream()
        .map(b -> Quantities.amount(b.getSpec().quota().ceiling()).orElse(BigDecimal.ZERO))
        .reduce(BigDecimal.ZERO, BigDecimal::add);
  }

  private static Condition quotaWithinTotal(KVCachePool pool, BigDecimal ceilings, boolean over) {
    return over
        ? Conditions.of(
            QUOTA_WITHIN_TOTAL,
            false,
            "Oversubscribed",
            "the Bindings' ceilings add up to "
                + ceilings.toPlainString()
                + " bytes, above the pool's total of "
                + pool.getSpec().quota().total())
        : Conditions.of(
            QUOTA_WITHIN_TOTAL,
            true,
            "WithinTotal",
            "the Bindings' ceilings fit the pool's total of " + pool.getSpec().quota().total());
  }

  private String now() {
    return Instant.now(clock).truncatedTo(ChronoUnit.SECONDS).toString();
  }
}
