package ai.gpustack.kvcache.operator.status;

import ai.gpustack.kvcache.api.Condition;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;

/** Builds conditions and merges them into a status, keeping transition times of unchanged ones. */
public final class Conditions {
  private Conditions() {}

  public static Condition of(String type, boolean status, String reason, String message) {
    return Condition.builder()
        .type(type)
        .status(status ? Condition.TRUE : Condition.FALSE)
        .reason(reason)
        .message(message)
        .build();
  }

  public static Condition unknown(String type, String reason, String message) {
    return Condition.builder()
        .type(type)
        .status(Condition.UNKNOWN)
        .reason(reason)
        .message(message)
        .build();
  }

  /**
   * {@code wanted} stamped with {@code now}, except where {@code current} already says the same
   * (status, reason and message), whose time is kept so nothing changes and nothing is written.
   */
  public static List<Condition> merge(List<Condition> current, List<Condition> wanted, String now) {
    List<Condition> out = new ArrayList<>();
    for (Condition w : wanted) {
      Optional<Condition> same =
          current.stream()
              .filter(c -> c.type().equals(w.type()) && c.status().equals(w.status()))
              .filter(c -> c.reason().equals(w.reason()) && c.message().equals(w.message()))
              .findFirst();
      Optional<Condition> sameStatus =
          current.stream()
              .filter(c -> c.type().equals(w.type()) && c.status().equals(w.status()))
              .findFirst();
      String time =
          same.flatMap(Condition::lastTransitionTime)
              .or(() -> sameStatus.flatMap(Condition::lastTransitionTime))
              .orElse(now);
      out.add(w.withLastTransitionTime(time));
    }
    return out;
  }

  public static Optional<Condition> find(List<Condition> conditions, String type) {
    return conditions.stream().filter(c -> c.type().equals(type)).findFirst();
  }
}
