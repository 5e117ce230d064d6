package ai.gpustack.kvcache.operator.reconcile;

import static org.assertj.core.api.Assertions.assertThat;

import ai.gpustack.kvcache.resources.Keys;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.PodBuilder;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

class RolloutTest {
  private static final List<Pod> DESIRED = List.of(pod(0, "new"), pod(1, "new"), pod(2, "new"));

  @Test
  void missing_ordinals_are_created_and_ordinals_past_the_replicas_deleted() {
    Pod extra = ready(pod(3, "new"));
    Rollout rollout = Rollout.plan(DESIRED, List.of(ready(pod(1, "new")), extra), false);
    assertThat(names(rollout.creations())).containsExactly("r-0", "r-2");
    assertThat(rollout.deletions()).containsExactly(extra);
    assertThat(rollout.replacement()).isEmpty();
    assertThat(rollout.moving()).isTrue();
  }

  @Test
  void a_held_deployment_only_loses_what_it_no_longer_has() {
    Pod extra = pod(3, "old");
    Rollout rollout = Rollout.plan(DESIRED, List.of(pod(0, "old"), extra), true);
    assertThat(rollout.creations()).isEmpty();
    assertThat(rollout.replacement()).isEmpty();
    assertThat(rollout.deletions()).containsExactly(extra);
    assertThat(Rollout.plan(DESIRED, List.of(pod(0, "old")), true).moving()).isFalse();
  }

  @Test
  void the_highest_outdated_ordinal_is_replaced_alone_while_every_replica_is_ready() {
    List<Pod> pods = List.of(ready(pod(0, "old")), ready(pod(1, "old")), ready(pod(2, "new")));
    Rollout rollout = Rollout.plan(DESIRED, pods, false);
    assertThat(rollout.replacement()).isPresent();
    assertThat(rollout.replacement().get()).isSameAs(pods.get(1));
    assertThat(rollout.deletions()).isEmpty();
    assertThat(rollout.creations()).isEmpty();
  }

  @Test
  void no_replacement_while_a_replica_is_not_ready_missing_or_an_outdated_one_terminating() {
    assertThat(
            Rollout.plan(
                    DESIRED,
                    List.of(ready(pod(0, "old")), pod(1, "new"), ready(pod(2, "new"))),
                    false)
                .replacement())
        .as("a replica not Ready")
        .isEmpty();
    assertThat(Rollout.plan(DESIRED, List.of(ready(pod(0, "old")), ready(pod(1, "new"))), false))
        .as("a replica missing: created, nothing replaced")
        .satisfies(r -> assertThat(r.replacement()).isEmpty())
        .satisfies(r -> assertThat(names(r.creations())).containsExactly("r-2"));
    Pod terminating = ready(pod(2, "old"));
    terminating.getMetadata().setDeletionTimestamp("2026-12-03T00:00:00Z");
    assertThat(
            Rollout.plan(
                    DESIRED,
                    List.of(ready(pod(0, "old")), ready(pod(1, "new")), terminating),
                    false)
                .replacement())
        .as("an outdated replica still terminating")
        .isEmpty();
  }

  @Test
  void a_role_where_it_should_be_is_not_moving() {
    List<Pod> pods = List.of(ready(pod(0, "new")), ready(pod(1, "new")), ready(pod(2, "new")));
    Rollout rollout = Rollout.plan(DESIRED, pods, false);
    assertThat(rollout.moving()).isFalse();
    assertThat(rollout.deletions()).isEmpty();
    assertThat(rollout.creations()).isEmpty();
    assertThat(rollout.replacement()).isEmpty();
  }

  private static Pod pod(int ordinal, String hash) {
    return new PodBuilder()
        .withNewMetadata()
        .withName("r-" + ordinal)
        .withNamespace("ns")
        .withUid("uid-" + ordinal + "-" + hash)
        .withLabels(Map.of(Keys.POD_ORDINAL, Integer.toString(ordinal)))
        .withAnnotations(Map.of(Keys.POD_SPEC_HASH, hash))
        .endMetadata()
        .build();
  }

  private static Pod ready(Pod pod) {
    return new PodBuilder(pod)
        .withNewStatus()
        .addNewCondition()
        .withType("Ready")
        .withStatus("True")
        .endCondition()
        .endStatus()
        .build();
  }

  private static List<String> names(List<Pod> pods) {
    return pods.stream().map(p -> p.getMetadata().getName()).toList();
  }
}
