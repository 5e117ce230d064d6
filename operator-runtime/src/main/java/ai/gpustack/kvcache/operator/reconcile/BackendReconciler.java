package ai.gpustack.kvcache.operator.reconcile;

import ai.gpustack.kvcache.api.KVCacheBackendStatus;
import ai.gpustack.kvcache.api.WorkloadRef;
import ai.gpustack.kvcache.operator.informers.CacheView;
import ai.gpustack.kvcache.operator.informers.Informers;
import ai.gpustack.kvcache.operator.status.StatusWriter;
import ai.gpustack.kvcache.resources.KVCacheBackend;
import ai.gpustack.kvcache.resources.KVCachePool;
import io.javaoperatorsdk.operator.api.reconciler.Context;
import io.javaoperatorsdk.operator.api.reconciler.ControllerConfiguration;
import io.javaoperatorsdk.operator.api.reconciler.EventSourceContext;
import io.javaoperatorsdk.operator.api.reconciler.Reconciler;
import io.javaoperatorsdk.operator.api.reconciler.UpdateControl;
import io.javaoperatorsdk.operator.processing.event.source.EventSource;
import java.util.List;
import java.util.Optional;

/** A backend's status: its endpoint and the pools publishing it. */
@ControllerConfiguration(name = "kvcachebackend")
public final class BackendReconciler implements Reconciler<KVCacheBackend> {
  @Override
  public List<EventSource<?, KVCacheBackend>> prepareEventSources(
      EventSourceContext<KVCacheBackend> context) {
    return List.of(
        Informers.watch(
            KVCachePool.class,
            context,
            p ->
                context
                    .getPrimaryCache()
                    .list()
                    .filter(
                        b ->
                            p.getSpec() != null
                                && p.getSpec().backends().contains(b.getMetadata().getName()))));
  }

  @Override
  public UpdateControl<KVCacheBackend> reconcile(
      KVCacheBackend backend, Context<KVCacheBackend> context) {
    Optional<String> endpoint =
        backend.getSpec().connection().external().map(e -> e.clientEndpoint());
    List<WorkloadRef> pools =
        new CacheView(context)
            .poolsNaming(backend.getMetadata().getName()).stream()
                .map(p -> WorkloadRef.of("KVCachePool", "", p.getMetadata().getName()))
                .sorted(WorkloadRef.ORDER)
                .toList();
    KVCacheBackendStatus next =
        KVCacheBackendStatus.builder()
            .phase(endpoint.isPresent() ? "Ready" : "Error")
            .clientEndpoint(endpoint)
            .addAllUsedBy(pools)
            .build();
    if (!next.equals(backend.getStatus())) {
      StatusWriter.write(
          context.getClient(), backend, backend.getStatus(), next, java.util.Set.of());
    }
    return UpdateControl.noUpdate();
  }
}
