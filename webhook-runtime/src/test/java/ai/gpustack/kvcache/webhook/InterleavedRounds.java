package ai.gpustack.kvcache.webhook;

import java.util.ArrayList;
import java.util.List;

/**
 * How the webhook benchmarks measure several series on one shared machine: short rounds of each in
 * turn, forwards in even rounds and backwards in odd ones, so drift falls on every series alike.
 */
final class InterleavedRounds {
  private InterleavedRounds() {}

  /** One measurement of one series. */
  @FunctionalInterface
  interface Measure<S, R> {
    R of(S series) throws Exception;
  }

  /** Per series (in the order given), its {@code rounds} results. */
  static <S, R> List<List<R>> run(List<S> series, int rounds, Measure<S, R> measure)
      throws Exception {
    List<List<R>> results = new ArrayList<>();
    series.forEach(s -> results.add(new ArrayList<>()));
    for (int round = 0; round < rounds; round++) {
      for (int k = 0; k < series.size(); k++) {
        int s = round % 2 == 0 ? k : series.size() - 1 - k;
        results.get(s).add(measure.of(series.get(s)));
      }
    }
    return results;
  }
}
