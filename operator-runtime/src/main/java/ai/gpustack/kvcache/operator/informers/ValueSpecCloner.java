package ai.gpustack.kvcache.operator.informers;

import ai.gpustack.kvcache.resources.KVCacheBackend;
import ai.gpustack.kvcache.resources.KVCachePool;
import ai.gpustack.kvcache.resources.KVCachePoolBinding;
import ai.gpustack.kvcache.resources.ModelDeployment;
import ai.gpustack.kvcache.resources.Setting;
import io.fabric8.kubernetes.api.model.HasMetadata;
import io.fabric8.kubernetes.api.model.ObjectMetaBuilder;
import io.fabric8.kubernetes.client.CustomResource;
import io.fabric8.kubernetes.client.utils.KubernetesSerialization;
import io.javaoperatorsdk.operator.api.config.Cloner;
import java.util.Map;
import java.util.function.Supplier;

/**
 * The copy of a cached resource the Java Operator SDK hands each reconcile. Our custom resources'
 * spec and status are immutable values, so a copy needs its own metadata only and shares them,
 * where the SDK's default serializes and parses the whole object. Anything else is copied through
 * {@code serialization}, as the SDK does.
 */
public final class ValueSpecCloner implements Cloner {
  /** Our custom resources, each with a new empty instance of its kind. */
  private static final Map<Class<?>, Supplier<CustomResource<?, ?>>> VALUE_KINDS =
      Map.of(
          ModelDeployment.class, ModelDeployment::new,
          KVCachePoolBinding.class, KVCachePoolBinding::new,
          KVCachePool.class, KVCachePool::new,
          KVCacheBackend.class, KVCacheBackend::new,
          Setting.class, Setting::new);

  private final KubernetesSerialization serialization;

  public ValueSpecCloner(KubernetesSerialization serialization) {
    this.serialization = serialization;
  }

  @Override
  @SuppressWarnings({"unchecked", "rawtypes"}) // spec and status go to a copy of the same kind
  public <R extends HasMetadata> R clone(R object) {
    Supplier<CustomResource<?, ?>> fresh = VALUE_KINDS.get(object.getClass());
    if (fresh == null) {
      return serialization.clone(object);
    }
    CustomResource original = (CustomResource) object;
    CustomResource copy = fresh.get();
    copy.setApiVersion(original.getApiVersion());
    copy.setKind(original.getKind());
    copy.setMetadata(
        original.getMetadata() == null
            ? null
            : new ObjectMetaBuilder(original.getMetadata()).build());
    copy.setSpec(original.getSpec());
    copy.setStatus(original.getStatus());
    return (R) copy;
  }
}
