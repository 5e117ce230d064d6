package ai.gpustack.kvcache.resources;

import io.fabric8.kubernetes.api.model.HasMetadata;
import io.fabric8.kubernetes.api.model.OwnerReference;
import java.util.List;
import java.util.Optional;

/** Owner references, read as the garbage collector reads them. */
public final class Owners {
  private Owners() {}

  /**
   * The reference marked {@code controller: true}: the API server lets an object have at most one,
   * and the owner it names is the one that manages the object.
   */
  public static Optional<OwnerReference> controller(HasMetadata resource) {
    return Optional.ofNullable(resource.getMetadata().getOwnerReferences())
        .orElse(List.of())
        .stream()
        .filter(r -> Boolean.TRUE.equals(r.getController()))
        .findFirst();
  }
}
