package ai.gpustack.kvcache.operator.reconcile;

import static ai.gpustack.kvcache.api.Quoting.quote;

import ai.gpustack.kvcache.api.Condition;
import ai.gpustack.kvcache.api.KVCachePoolStatus;
import ai.gpustack.kvcache.api.NamespacedName;
import ai.gpustack.kvcache.api.PoolDomain;
import ai.gpustack.kvcache.api.WorkloadRef;
import ai.gpustack.kvcache.operator.render.Conditions;
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
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Optional;

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
    KVCachePoolStatus current =
        pool.getStatus() == null ? KVCachePoolStatus.builder().build() : pool.getStatus();
    List<Condition> wanted = new ArrayList<>();
    String backendName = pool.getSpec().backends().stream().findFirst().orElse("");
    Optional<String> endpoint =
        view.backend(backendName)
            .flatMap(b -> b.getSpec().connection().external())
            .map(e -> e.clientEndpoint());
    wanted.add(
        endpoint.isPresent()
            ? Conditions.of(
                BACKEND_RESOLVED,
                true,
                "Resolved",
                "KVCacheBackend " + quote(backendName) + " serves " + endpoint.get())
            : Conditions.of(
                BACKEND_RESOLVED,
                false,
                "BackendNotFound",
                "KVCacheBackend " + quote(backendName) + " does not exist or names no endpoint"));
    List<KVCachePoolBinding> bindings =
        view.bindings().stream()
            .filter(
                b ->
                    b.getSpec() != null
                        && b.getSpec().poolRef().name().equals(pool.getMetadata().getName()))
            .sorted(
                Comparator.comparing((KVCachePoolBinding b) -> b.getMetadata().getNamespace())
                    .thenComparing(b -> b.getMetadata().getName()))
            .toList();
    List<PoolDomain> domains = new ArrayList<>();
    List<WorkloadRef> usedBy = new ArrayList<>();
    BigDecimal sum = BigDecimal.ZERO;
    for (KVCachePoolBinding b : bindings) {
      domains.add(
          PoolDomain.builder()
              .name(b.getSpec().domain().name())
              .binding(NamespacedName.of(b.getMetadata().getNamespace(), b.getMetadata().getName()))
              .blockSize(b.getSpec().domain().blockSize())
              .dtype(b.getSpec().domain().dtype())
              .build());
      usedBy.add(
          WorkloadRef.of(
              "KVCachePoolBinding", b.getMetadata().getNamespace(), b.getMetadata().getName()));
      sum = sum.add(Quantities.amount(b.getSpec().quota().ceiling()).orElse(BigDecimal.ZERO));
    }
    Optional<BigDecimal> total = Quantities.amount(pool.getSpec().quota().total());
    boolean over = total.isPresent() && sum.compareTo(total.get()) > 0;
    wanted.add(
        over
            ? Conditions.of(
                QUOTA_WITHIN_TOTAL,
                false,
                "Oversubscribed",
                "the Bindings' ceilings add up to "
                    + sum.toPlainString()
                    + " bytes, above the pool's total of "
                    + pool.getSpec().quota().total())
            : Conditions.of(
                QUOTA_WITHIN_TOTAL,
                true,
                "WithinTotal",
                "the Bindings' ceilings fit the pool's total of "
                    + pool.getSpec().quota().total()));
    String phase = endpoint.isEmpty() ? "Error" : over ? "Degraded" : "Ready";
    KVCachePoolStatus next =
        current
            .withPhase(phase)
            .withClientEndpoint(endpoint)
            .withDomains(domains)
            .withUsedBy(usedBy)
            .withConditions(
                Conditions.merge(
                    current.conditions(),
                    wanted,
                    Instant.now(clock).truncatedTo(ChronoUnit.SECONDS).toString()));
    if (!next.equals(pool.getStatus())) {
      StatusWriter.write(context.getClient(), pool, pool.getStatus(), next, java.util.Set.of());
    }
    return UpdateControl.noUpdate();
  }
}
