package ai.gpustack.kvcache.operator.render;

import ai.gpustack.kvcache.api.KvCacheStatus;
import ai.gpustack.kvcache.api.Message;
import ai.gpustack.kvcache.attach.Attachment;
import ai.gpustack.kvcache.attach.Refusal;
import ai.gpustack.kvcache.resources.KVCachePoolBinding;
import io.fabric8.kubernetes.api.model.Pod;
import java.util.List;
import java.util.Optional;

/**
 * The desired state of one ModelDeployment: each role's Pods by ordinal, what its Binding reference
 * resolved to (absent without {@code spec.kvCache}), and whether every role takes its argv over.
 */
public record Rendering(
    List<RolePlan> roles, Optional<Attachment> attachment, boolean allTakeOver) {
  /** One role: whether the operator renders its argv, and its desired Pods, ordinal order. */
  public record RolePlan(String name, boolean unmanaged, List<Pod> pods) {}

  /** The Binding the deployment names, when it exists. */
  public Optional<KVCachePoolBinding> binding() {
    return attachment.flatMap(Attachment::binding);
  }

  /** The deployment's {@code status.kvCache}. */
  public Optional<KvCacheStatus> kvCache() {
    return attachment.flatMap(Attachment::status);
  }

  /**
   * The refusal the rollout is held on: the dtype's, when the operator renders some role's argv.
   */
  public Optional<Refusal> held() {
    return allTakeOver
        ? Optional.empty()
        : attachment.flatMap(Attachment::refusal).filter(Refusal::aboutDtype);
  }

  /** Whether the rollout is held on the last good render. */
  public boolean isHeld() {
    return held().isPresent();
  }

  /** Why the rollout is held, as the condition and the event say it. */
  public Optional<String> heldMessage() {
    return held().map(r -> Message.ATTACH_HELD.detail(r.message()));
  }
}
