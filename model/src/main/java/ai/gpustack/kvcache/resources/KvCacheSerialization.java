package ai.gpustack.kvcache.resources;

import ai.gpustack.kvcache.api.Json;
import com.fasterxml.jackson.annotation.JsonIgnoreProperties;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.fabric8.kubernetes.api.model.ObjectMeta;
import io.fabric8.kubernetes.api.model.WatchEvent;
import io.fabric8.kubernetes.client.utils.KubernetesSerialization;
import java.util.List;

/**
 * The one serialization every client, informer, handler and tool here uses: fabric8's, with {@link
 * java.util.Optional} support, sorted map keys, the custom resources registered so they read as
 * their classes, and watch events read in one pass ({@link WatchedObjectDeserializer}).
 */
public final class KvCacheSerialization {
  /** Every custom resource of this project. */
  public static final List<Class<? extends io.fabric8.kubernetes.client.CustomResource<?, ?>>>
      RESOURCES =
          List.of(
              KVCacheBackend.class,
              KVCachePool.class,
              KVCachePoolBinding.class,
              ModelDeployment.class,
              Setting.class);

  private KvCacheSerialization() {}

  public static KubernetesSerialization create() {
    return create(Json.newMapper());
  }

  /**
   * As {@link #create()}, reading and writing every object without {@code metadata.managedFields}:
   * for a client whose caches never read them, as the reference operator's. A write that leaves
   * them out keeps the server's. Skipped while reading rather than bound and dropped: a KWOK-run
   * replica's watch event is 5.4 kB, 2.3 kB of it managed fields, and binding them was a third of
   * what reading the event allocates.
   */
  public static KubernetesSerialization withoutManagedFields() {
    ObjectMapper mapper = Json.newMapper();
    mapper.addMixIn(ObjectMeta.class, WithoutManagedFields.class);
    return create(mapper);
  }

  @JsonIgnoreProperties("managedFields")
  private abstract static class WithoutManagedFields {}

  /**
   * As {@link #create()}, over {@code mapper}, which it configures: a caller holding the mapper can
   * bind trees directly ({@link ObjectMapper#treeToValue}), without the copy {@code convertValue}
   * makes.
   */
  public static KubernetesSerialization create(ObjectMapper mapper) {
    mapper.addMixIn(WatchEvent.class, WatchedObjectDeserializer.OnWatchEvent.class);
    KubernetesSerialization serialization = new KubernetesSerialization(mapper, true);
    RESOURCES.forEach(serialization::registerKubernetesResource);
    return serialization;
  }
}
