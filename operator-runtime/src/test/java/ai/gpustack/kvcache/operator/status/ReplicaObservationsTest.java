package ai.gpustack.kvcache.operator.status;

import static java.util.concurrent.CompletableFuture.completedFuture;
import static org.assertj.core.api.Assertions.assertThat;

import ai.gpustack.kvcache.observe.Observation;
import ai.gpustack.kvcache.observe.Verdict;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.PodBuilder;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.time.ZoneId;
import java.time.ZoneOffset;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.BooleanSupplier;
import java.util.function.Function;
import org.junit.jupiter.api.Test;

/** Reads never hold the caller, happen once per Pod, and again only while unreachable. */
class ReplicaObservationsTest {
  private static Pod pod(String uid) {
    return new PodBuilder()
        .withNewMetadata()
        .withName("r-" + uid)
        .withNamespace("ns")
        .withUid(uid)
        .endMetadata()
        .build();
  }

  private static Observation observation(Pod pod, Verdict verdict, boolean reached) {
    return new Observation(
        "ns",
        pod.getMetadata().getName(),
        "ModelDeployment/md",
        "vLLM",
        "chat",
        "bfloat16",
        Optional.empty(),
        verdict == Verdict.NOT_REPORTED ? Optional.empty() : Optional.of("fp8"),
        "GET :8000/metrics",
        verdict,
        reached);
  }

  private static void await(BooleanSupplier done) throws InterruptedException {
    long end = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
    while (!done.getAsBoolean() && System.nanoTime() < end) {
      Thread.sleep(10);
    }
    assertThat(done.getAsBoolean()).isTrue();
  }

  @Test
  void a_stalled_engine_never_holds_the_caller_and_each_pod_is_read_once() throws Exception {
    CompletableFuture<Observation> stalled = new CompletableFuture<>();
    AtomicInteger reads = new AtomicInteger();
    ReplicaObservations o = new ReplicaObservations(null, Clock.systemUTC());
    Pod a = pod("a");
    ReplicaObservations.Known first =
        o.observe(
            "md",
            List.of(a),
            true,
            p -> {
              reads.incrementAndGet();
              return stalled;
            });
    assertThat(first.pending()).isTrue();
    assertThat(first.observations()).isEmpty();
    assertThat(o.observe("md", List.of(a), true, p -> null).pending())
        .as("still under way: not read twice")
        .isTrue();
    stalled.complete(observation(a, Verdict.DIFFERS, true));
    await(() -> !o.observe("md", List.of(a), true, p -> null).pending());
    ReplicaObservations.Known known =
        o.observe(
            "md", List.of(a), true, p -> completedFuture(observation(p, Verdict.MATCHES, true)));
    assertThat(known.observations())
        .extracting(Observation::verdict)
        .containsExactly(Verdict.DIFFERS);
    assertThat(reads).hasValue(1);
    assertThat(o.firstDiffers(a)).isTrue();
    assertThat(o.firstDiffers(a)).isFalse();
    // Gone from the deployment: forgotten.
    o.observe("md", List.of(), true, p -> null);
    assertThat(o.firstDiffers(a)).isFalse();
  }

  @Test
  void an_unreachable_engine_is_read_again_after_its_backoff_only() throws Exception {
    Instant[] now = {Instant.parse("2026-12-01T00:00:00Z")};
    Clock clock =
        new Clock() {
          @Override
          public ZoneId getZone() {
            return ZoneOffset.UTC;
          }

          @Override
          public Clock withZone(ZoneId zone) {
            return this;
          }

          @Override
          public Instant instant() {
            return now[0];
          }
        };
    AtomicInteger reads = new AtomicInteger();
    ReplicaObservations o = new ReplicaObservations(null, clock);
    Pod a = pod("a");
    Function<Pod, CompletableFuture<Observation>> down =
        p -> {
          reads.incrementAndGet();
          return completedFuture(observation(p, Verdict.NOT_REPORTED, false));
        };
    o.observe("md", List.of(a), true, down);
    await(
        () ->
            reads.get() == 1
                && !o.observe("md", List.of(a), true, p -> null).observations().isEmpty());
    ReplicaObservations.Known waiting = o.observe("md", List.of(a), true, down);
    assertThat(waiting.recheck())
        .as("looked at again when the retry is due, not every few seconds")
        .contains(ReplicaObservations.backoff(1));
    assertThat(waiting.pending()).isFalse();
    Thread.sleep(50);
    assertThat(reads).as("not before the backoff").hasValue(1);
    now[0] = now[0].plus(Duration.ofSeconds(3));
    o.observe("md", List.of(a), true, down);
    await(() -> reads.get() == 2);
    assertThat(ReplicaObservations.backoff(1)).isEqualTo(Duration.ofSeconds(2));
    assertThat(ReplicaObservations.backoff(30)).isEqualTo(Duration.ofMinutes(5));
  }
}
