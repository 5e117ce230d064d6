package ai.gpustack.kvcache.operator.render;

import ai.gpustack.kvcache.api.Condition;
import ai.gpustack.kvcache.api.KvCacheStatus;
import ai.gpustack.kvcache.resources.KVCachePoolBinding;
import io.fabric8.kubernetes.api.model.Pod;
import java.util.List;
import java.util.Optional;

/**
 * The desired state of one ModelDeployment: each role's Pods by ordinal, what its attachment
 * resolved to, its conditions, and whether the rollout is held because the engine rejects the
 * Binding's dtype.
 */
public record Rendering(
    List<RolePlan> roles,
    Optional<KVCachePoolBinding> binding,
    Optional<KvCacheStatus> kvCache,
    List<Condition> conditions,
    Optional<String> held) {
  /** One role: whether the operator renders its argv, and its desired Pods, ordinal order. */
  public record RolePlan(String name, boolean unmanaged, List<Pod> pods) {}

  /** Whether the rollout is held on the last good render. */
  public boolean isHeld() {
    return held.isPresent();
  }
}
