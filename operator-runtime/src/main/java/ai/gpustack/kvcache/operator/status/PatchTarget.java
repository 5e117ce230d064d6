package ai.gpustack.kvcache.operator.status;

import io.fabric8.kubernetes.api.model.HasMetadata;
import io.fabric8.kubernetes.api.model.ObjectMetaBuilder;

/** What a status patch goes through: the object's kind, name and namespace, nothing else. */
public final class PatchTarget {
  private PatchTarget() {}

  /**
   * An empty object of {@code resource}'s kind with only its name and namespace. The client copies
   * the whole object a patch goes through, and a patch by name reads the object from the server
   * first (a Binding's whole usedBy, per claim).
   */
  public static HasMetadata of(HasMetadata resource) {
    HasMetadata named;
    try {
      named = resource.getClass().getDeclaredConstructor().newInstance();
    } catch (ReflectiveOperationException e) {
      throw new IllegalStateException(
          resource.getClass() + " has no public no-argument constructor", e);
    }
    named.setMetadata(
        new ObjectMetaBuilder()
            .withName(resource.getMetadata().getName())
            .withNamespace(resource.getMetadata().getNamespace())
            .build());
    return named;
  }
}
