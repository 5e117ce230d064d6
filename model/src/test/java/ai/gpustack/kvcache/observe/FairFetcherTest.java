package ai.gpustack.kvcache.observe;

import static org.assertj.core.api.Assertions.assertThat;

import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.PodBuilder;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CopyOnWriteArrayList;
import org.junit.jupiter.api.Test;

/** Places are shared between namespaces in turn, within both limits. */
class FairFetcherTest {
  private final List<String> started = new CopyOnWriteArrayList<>();
  private final List<CompletableFuture<Fetch>> underWay = new ArrayList<>();

  private final ReportFetcher held =
      (pod, port, path) -> {
        started.add(pod.getMetadata().getNamespace() + "/" + pod.getMetadata().getName());
        CompletableFuture<Fetch> f = new CompletableFuture<>();
        underWay.add(f);
        return f;
      };

  private static Pod pod(String namespace, String name) {
    return new PodBuilder()
        .withNewMetadata()
        .withNamespace(namespace)
        .withName(name)
        .endMetadata()
        .build();
  }

  @Test
  void a_namespace_holds_at_most_its_share_and_the_next_place_goes_to_whoever_is_next_in_turn() {
    FairFetcher fair = new FairFetcher(held, 3, 2);
    List<CompletableFuture<Fetch>> results = new ArrayList<>();
    for (int i = 0; i < 5; i++) {
      results.add(fair.fetch(pod("a", "a" + i), 1, "/"));
    }
    results.add(fair.fetch(pod("b", "b0"), 1, "/"));
    results.add(fair.fetch(pod("b", "b1"), 1, "/"));
    results.add(fair.fetch(pod("c", "c0"), 1, "/"));
    assertThat(started).containsExactly("a/a0", "a/a1", "b/b0");

    underWay.get(0).complete(Fetch.answered("a0"));
    assertThat(results.get(0).join().body()).contains("a0");
    // a is at its share and was served last turn; c waits longest.
    assertThat(started).containsExactly("a/a0", "a/a1", "b/b0", "c/c0");

    underWay.get(2).complete(Fetch.failed("b0"));
    assertThat(started).endsWith("a/a2");
    underWay.get(1).complete(Fetch.answered("a1"));
    assertThat(started).endsWith("b/b1");
  }

  @Test
  void a_read_that_ends_at_once_frees_its_place_and_deep_queues_do_not_recurse() {
    FairFetcher fair =
        new FairFetcher(
            (pod, port, path) -> CompletableFuture.completedFuture(Fetch.answered("ok")), 1, 1);
    List<CompletableFuture<Fetch>> results = new ArrayList<>();
    for (int i = 0; i < 20_000; i++) {
      results.add(fair.fetch(pod("ns-" + (i % 7), "p" + i), 1, "/"));
    }
    assertThat(results).allSatisfy(r -> assertThat(r.join().body()).contains("ok"));
  }

  @Test
  void a_fetcher_that_throws_is_a_failed_read_and_gives_its_place_back() {
    FairFetcher fair =
        new FairFetcher(
            (pod, port, path) -> {
              throw new IllegalStateException("bug");
            },
            1,
            1);
    assertThat(fair.fetch(pod("a", "a0"), 1, "/").join().detail())
        .isEqualTo("unreadable: IllegalStateException");
    assertThat(fair.fetch(pod("a", "a1"), 1, "/").join().detail())
        .isEqualTo("unreadable: IllegalStateException");
  }
}
