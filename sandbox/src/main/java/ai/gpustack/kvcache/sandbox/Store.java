package ai.gpustack.kvcache.sandbox;

import io.fabric8.kubernetes.api.model.GenericKubernetesResource;
import io.fabric8.kubernetes.client.server.mock.KubernetesCrudDispatcher;
import io.fabric8.mockwebserver.crud.AttributeSet;
import java.util.Objects;

/**
 * fabric8's CRUD store, telling the {@link WatchHub} about every change it makes, whoever made it:
 * kubectl, the operator, the kubelet, a status subresource write or a finalizer's removal.
 */
final class Store extends KubernetesCrudDispatcher {
  private final WatchHub watches;

  Store(WatchHub watches) {
    this.watches = watches;
  }

  @Override
  public void processEvent(
      String path,
      AttributeSet pathAttributes,
      AttributeSet oldAttributes,
      GenericKubernetesResource resource,
      String newState) {
    String old = oldAttributes == null ? null : getMap().get(oldAttributes);
    super.processEvent(path, pathAttributes, oldAttributes, resource, newState);
    if (!Objects.equals(old, newState)) {
      watches.publish(old, newState, this::requestResourceVersion);
    }
  }
}
