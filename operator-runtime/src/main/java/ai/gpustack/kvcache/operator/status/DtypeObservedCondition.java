package ai.gpustack.kvcache.operator.status;

import static ai.gpustack.kvcache.api.Quoting.quote;

import ai.gpustack.kvcache.api.Condition;
import ai.gpustack.kvcache.api.Message;
import ai.gpustack.kvcache.observe.Observation;
import ai.gpustack.kvcache.observe.Verdict;
import java.util.List;
import java.util.Optional;
import java.util.function.Function;
import java.util.stream.Collectors;

/**
 * A deployment's {@code DtypeObserved}: what its Ready replicas' engines report against the
 * Binding. {@code False}/{@code Differs} names each replica that differs; {@code True}/{@code
 * Matches} once every Ready replica reports the Binding's dtype (or its format); else {@code
 * Unknown} with {@code Unreachable}, {@code NotReported} or {@code NotOwned}.
 */
public final class DtypeObservedCondition {
  public static final String TYPE = "DtypeObserved";

  private DtypeObservedCondition() {}

  /**
   * The condition for {@code ready} Ready replicas of which {@code known} were read. While reads
   * are under way and nothing read differs, a {@code Matches} already reported stands (a roll
   * brings new replicas one by one; flapping to Unknown and back would write the status twice per
   * replica for nothing).
   */
  public static Condition of(
      ReplicaObservations.Known reads, int ready, boolean owned, Optional<Condition> current) {
    Condition next = of(reads.observations(), ready, owned);
    boolean stands =
        reads.pending()
            && !next.reason().equals(Optional.of("Differs"))
            && owned
            && current.filter(c -> c.reason().equals(Optional.of("Matches"))).isPresent();
    return stands ? current.get() : next;
  }

  public static Condition of(List<Observation> known, int ready, boolean owned) {
    if (!owned) {
      return Conditions.unknown(
          TYPE,
          "NotOwned",
          "model-deployment-kv-cache-dtype-owned is off: the Binding's dtype is not handed to the"
              + " engines, so there is nothing to compare");
    }
    List<Observation> differs = known.stream().filter(o -> o.verdict() == Verdict.DIFFERS).toList();
    if (!differs.isEmpty()) {
      return Conditions.of(
          TYPE,
          false,
          "Differs",
          Message.DTYPE_OBSERVED_DIFFERS.detail(some(differs, DtypeObservedCondition::differs)));
    }
    if (ready == 0) {
      return Conditions.unknown(TYPE, "NotReported", "no replica is Ready yet");
    }
    long matches = known.stream().filter(o -> o.verdict() == Verdict.MATCHES).count();
    if (matches == ready) {
      return Conditions.of(
          TYPE,
          true,
          "Matches",
          "every Ready replica ("
              + ready
              + ") reports "
              + quote(known.get(0).observedDtype().orElse(""), SHOWN));
    }
    List<Observation> unreachable = known.stream().filter(o -> !o.reached()).toList();
    if (!unreachable.isEmpty()) {
      return Conditions.unknown(
          TYPE,
          "Unreachable",
          Message.DTYPE_OBSERVED_UNREACHABLE.detail(
              some(unreachable, o -> "replica " + o.pod() + ": " + o.source())));
    }
    List<Observation> silent =
        known.stream().filter(o -> o.verdict() == Verdict.NOT_REPORTED).toList();
    if (!silent.isEmpty()) {
      return Conditions.unknown(TYPE, "NotReported", silent.get(0).source());
    }
    return Conditions.unknown(TYPE, "NotReported", "reading the Ready replicas' engines");
  }

  /** The first {@value #LISTED} replicas, then how many more: a message stays short at scale. */
  private static String some(List<Observation> replicas, Function<Observation, String> each) {
    String listed = replicas.stream().limit(LISTED).map(each).collect(Collectors.joining("; "));
    return replicas.size() > LISTED
        ? listed + "; and " + (replicas.size() - LISTED) + " more"
        : listed;
  }

  private static final int LISTED = 5;

  /** Values from a tenant's objects are cut at this many characters. */
  private static final int SHOWN = 64;

  private static String differs(Observation o) {
    return "replica "
        + o.pod()
        + " reports "
        + quote(o.observedDtype().orElse(""), SHOWN)
        + " where KVCachePoolBinding "
        + quote(o.binding(), SHOWN)
        + " declares "
        + quote(o.bindingDtype(), SHOWN)
        + o.argvDtype().map(a -> " (its argv passes " + quote(a, SHOWN) + ")").orElse("")
        + ", read "
        + o.source();
  }
}
