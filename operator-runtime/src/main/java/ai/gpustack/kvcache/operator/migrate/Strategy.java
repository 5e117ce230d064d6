package ai.gpustack.kvcache.operator.migrate;

import java.util.Arrays;
import java.util.Optional;

/** How a deployment moves to the new Binding. */
public enum Strategy {
  /** Keeps the name: delete, wait for its Pods to go, create against the new Binding. */
  RECREATE("recreate"),
  /** Creates {@code NAME-<suffix>} first, waits for it to be Ready, then deletes the old one. */
  SIDE_BY_SIDE("side-by-side");

  private final String word;

  Strategy(String word) {
    this.word = word;
  }

  public String word() {
    return word;
  }

  public static Optional<Strategy> of(String word) {
    return Arrays.stream(values()).filter(s -> s.word.equals(word)).findFirst();
  }
}
