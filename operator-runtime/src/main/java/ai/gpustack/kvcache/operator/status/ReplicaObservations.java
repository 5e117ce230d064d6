package ai.gpustack.kvcache.operator.status;

import ai.gpustack.kvcache.observe.DtypeObserver;
import ai.gpustack.kvcache.observe.Observation;
import ai.gpustack.kvcache.observe.Verdict;
import io.fabric8.kubernetes.api.model.Pod;
import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.MeterRegistry;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Collection;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.Function;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * What each Ready replica's engine reports, read once per Pod UID without holding a reconcile
 * thread (the reads are asynchronous; how many run at once, and how fairly between namespaces, is
 * the observer's fetcher's business); an unreachable engine is read again with backoff (2 s
 * doubling to 5 min) for as long as its Pod lives. A reconcile asks for what is known and
 * reschedules itself while reads are pending, so no reconcile waits on an engine.
 */
public final class ReplicaObservations {
  private static final Logger LOG = LoggerFactory.getLogger(ReplicaObservations.class);
  private static final Duration FIRST_RETRY = Duration.ofSeconds(2);
  private static final Duration LAST_RETRY = Duration.ofMinutes(5);

  /** One Pod's reads: the latest result, whether a read is under way, when to try again. */
  private static final class Entry {
    final String owner;
    volatile Observation result;
    volatile boolean inFlight;
    volatile boolean announced;
    int failures;
    Instant next = Instant.EPOCH;

    Entry(String owner) {
      this.owner = owner;
    }
  }

  /**
   * What is known of a set of replicas now, whether a read is under way, and when to look again:
   * soon while one is, when its retry falls due while an engine is unreachable, never once all are
   * read.
   */
  public record Known(
      List<Observation> observations, boolean pending, Optional<Duration> recheck) {}

  /**
   * How soon to look again while a read is under way. Measured against waking the caller as each
   * read ends, polling gathered a deployment's answers into fewer reconciles (issue 13's note).
   */
  public static final Duration SOON = Duration.ofSeconds(2);

  private final DtypeObserver observer;
  private final Clock clock;
  private final Map<String, Entry> byUid = new ConcurrentHashMap<>();

  /** The Setting as the latest reconcile read it, for the gauge. */
  private volatile boolean owned = true;

  /** Reads one replica. */
  public DtypeObserver observer() {
    return observer;
  }

  public ReplicaObservations(DtypeObserver observer, Clock clock) {
    this.observer = observer;
    this.clock = clock;
  }

  /** Publishes the replicas read, by verdict, as {@code kvcache_replicas_observed{verdict}}. */
  public ReplicaObservations register(MeterRegistry registry) {
    for (Verdict verdict : Verdict.values()) {
      Gauge.builder("kvcache_replicas_observed", this, o -> o.count(verdict))
          .description("Ready attached replicas by what their engine reports against the Binding")
          .tag("verdict", verdict.word())
          .register(registry);
    }
    return this;
  }

  private double count(Verdict verdict) {
    return byUid.values().stream()
        .map(e -> e.result)
        .filter(o -> o != null && (owned ? o.verdict() : Verdict.NOT_OWNED) == verdict)
        .count();
  }

  /**
   * What is known of {@code owner}'s Ready replicas {@code pods}, starting a read for each not read
   * yet or due again ({@code read} reads one Pod; a read made while the dtype was owned, or not, is
   * made again once {@code owned} says otherwise), and forgetting {@code owner}'s Pods that are
   * gone.
   */
  public Known observe(
      String owner,
      Collection<Pod> pods,
      boolean owned,
      Function<Pod, CompletableFuture<Observation>> read) {
    this.owned = owned;
    Set<String> live = new java.util.HashSet<>();
    pods.forEach(p -> live.add(p.getMetadata().getUid()));
    byUid.entrySet().removeIf(e -> e.getValue().owner.equals(owner) && !live.contains(e.getKey()));
    List<Observation> known = new ArrayList<>();
    Optional<Duration> recheck = Optional.empty();
    boolean pending = false;
    Instant now = clock.instant();
    for (Pod pod : pods) {
      String uid = pod.getMetadata().getUid();
      if (uid == null) {
        continue;
      }
      Entry entry = byUid.computeIfAbsent(uid, u -> new Entry(owner));
      Observation result = entry.result;
      if (result != null) {
        known.add(owned ? result : result.unowned());
      }
      if (entry.inFlight) {
        pending = true;
        recheck = earliest(recheck, Optional.of(SOON));
      } else if (result != null && result.reached()) {
        continue;
      } else if (now.isBefore(entry.next)) {
        recheck = earliest(recheck, Optional.of(Duration.between(now, entry.next)));
      } else {
        submit(entry, pod, read);
        pending = true;
        recheck = earliest(recheck, Optional.of(SOON));
      }
    }
    return new Known(known, pending, recheck);
  }

  /**
   * Whether {@code pod}'s engine was read as differing and that was not announced yet; marks it.
   */
  public boolean firstDiffers(Pod pod) {
    Entry entry = byUid.get(pod.getMetadata().getUid());
    if (entry == null || entry.result == null || entry.result.verdict() != Verdict.DIFFERS) {
      return false;
    }
    synchronized (entry) {
      if (entry.announced) {
        return false;
      }
      entry.announced = true;
      return true;
    }
  }

  private void submit(Entry entry, Pod pod, Function<Pod, CompletableFuture<Observation>> read) {
    entry.inFlight = true;
    CompletableFuture<Observation> reading;
    try {
      reading = read.apply(pod);
    } catch (RuntimeException e) {
      reading = CompletableFuture.failedFuture(e);
    }
    reading.whenComplete(
        (o, error) -> {
          synchronized (entry) {
            if (error != null) {
              LOG.warn("reading the dtype of {} failed", pod.getMetadata().getName(), error);
              entry.failures++;
              entry.next = clock.instant().plus(backoff(entry.failures));
            } else {
              entry.result = o;
              if (o.reached()) {
                entry.failures = 0;
              } else {
                entry.failures++;
                entry.next = clock.instant().plus(backoff(entry.failures));
              }
            }
          }
          entry.inFlight = false;
        });
  }

  private static Optional<Duration> earliest(Optional<Duration> a, Optional<Duration> b) {
    if (a.isEmpty()) {
      return b;
    }
    return b.isEmpty() || a.get().compareTo(b.get()) <= 0 ? a : b;
  }

  public static Duration backoff(int failures) {
    Duration d = FIRST_RETRY.multipliedBy(1L << Math.min(failures - 1, 20));
    return d.compareTo(LAST_RETRY) > 0 ? LAST_RETRY : d;
  }
}
