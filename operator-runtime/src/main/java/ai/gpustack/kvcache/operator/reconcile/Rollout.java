package ai.gpustack.kvcache.operator.reconcile;

import ai.gpustack.kvcache.resources.Pods;
import io.fabric8.kubernetes.api.model.Pod;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Optional;
import java.util.Set;
import java.util.stream.Collectors;

/**
 * One role's next step from the Pods it has to the Pods it should have, decided without the API
 * server: Pods past the desired ordinals (or with none) go; while the deployment is not held,
 * missing ordinals are created, and an outdated replica is replaced, the highest ordinal first, one
 * at a time and only while every replica is Ready and none is terminating, so serving capacity
 * never drops by more than one.
 *
 * @param deletions Pods to delete
 * @param creations desired Pods of missing ordinals, to create
 * @param replacement the one outdated replica to delete now, if any: its ordinal is missing once it
 *     is gone, and a later pass creates it as desired
 * @param moving whether the role is not yet where it should be
 */
record Rollout(
    List<Pod> deletions, List<Pod> creations, Optional<Pod> replacement, boolean moving) {

  static Rollout plan(List<Pod> desired, List<Pod> pods, boolean held) {
    List<Pod> deletions =
        pods.stream()
            .filter(p -> Pods.ordinal(p) < 0 || Pods.ordinal(p) >= desired.size())
            .toList();
    if (held) {
      return new Rollout(deletions, List.of(), Optional.empty(), !deletions.isEmpty());
    }
    Set<Integer> present = pods.stream().map(Pods::ordinal).collect(Collectors.toSet());
    List<Pod> creations = new ArrayList<>();
    for (int ordinal = 0; ordinal < desired.size(); ordinal++) {
      if (!present.contains(ordinal)) {
        creations.add(desired.get(ordinal));
      }
    }
    List<Pod> outdated =
        pods.stream()
            .filter(p -> Pods.ordinal(p) >= 0 && Pods.ordinal(p) < desired.size())
            .filter(p -> !Pods.hash(p).equals(Pods.hash(desired.get(Pods.ordinal(p)))))
            .sorted(Comparator.comparingInt(Pods::ordinal).reversed())
            .toList();
    boolean moving = !deletions.isEmpty() || !creations.isEmpty() || !outdated.isEmpty();
    boolean allReady =
        creations.isEmpty()
            && pods.stream().filter(p -> Pods.ordinal(p) < desired.size()).allMatch(Pods::ready);
    boolean terminating =
        outdated.stream().anyMatch(p -> p.getMetadata().getDeletionTimestamp() != null);
    Optional<Pod> replacement =
        outdated.isEmpty() || !allReady || terminating
            ? Optional.empty()
            : Optional.of(outdated.get(0));
    return new Rollout(deletions, List.copyOf(creations), replacement, moving);
  }
}
