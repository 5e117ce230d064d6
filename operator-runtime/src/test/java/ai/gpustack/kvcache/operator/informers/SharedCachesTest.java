package ai.gpustack.kvcache.operator.informers;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.PodBuilder;
import java.time.Duration;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;

class SharedCachesTest {
  /** An informer's Pods, listed once {@code synced} completes. */
  record Listing(CompletableFuture<Void> synced, List<Pod> pods) implements SharedCaches.PodCache {
    Listing(Pod... pods) {
      this(new CompletableFuture<>(), List.of(pods));
    }

    @Override
    public Stream<Pod> list(String namespace) {
      return pods.stream().filter(p -> p.getMetadata().getNamespace().equals(namespace));
    }
  }

  static Pod pod(String namespace, String name) {
    return new PodBuilder()
        .withNewMetadata()
        .withNamespace(namespace)
        .withName(name)
        .endMetadata()
        .build();
  }

  @Test
  void a_read_before_the_first_list_waits_for_it() throws Exception {
    SharedCaches shared = new SharedCaches();
    Listing listing = new Listing(pod("a", "p"), pod("b", "q"));
    shared.injectedPodsFrom(Optional.empty(), listing);
    CompletableFuture<List<Pod>> read =
        CompletableFuture.supplyAsync(() -> shared.injectedPods("a"));
    Thread.sleep(200);
    assertThat(read).as("a partial list could misplace the domain's earliest").isNotDone();
    listing.synced().complete(null);
    assertThat(read.get(5, TimeUnit.SECONDS))
        .extracting(p -> p.getMetadata().getName())
        .containsExactly("p");
  }

  @Test
  void a_list_that_never_comes_fails_the_read_naming_the_namespace() {
    SharedCaches shared = new SharedCaches(Duration.ofMillis(100));
    shared.injectedPodsFrom(Optional.of("a"), new Listing(pod("a", "p")));
    assertThatThrownBy(() -> shared.injectedPods("a"))
        .isInstanceOf(IllegalStateException.class)
        .hasMessage("the injected Pods of a were not listed within PT0.1S");
  }

  @Test
  void a_namespace_no_informer_watches_has_no_injected_pods() {
    SharedCaches shared = new SharedCaches(Duration.ofMillis(100));
    Listing a = new Listing(pod("a", "p"));
    a.synced().complete(null);
    shared.injectedPodsFrom(Optional.of("a"), a);
    assertThat(shared.injectedPods("a")).hasSize(1);
    assertThat(shared.injectedPods("b")).isEmpty();
  }

  @Test
  void without_the_binding_controller_a_read_says_what_is_missing() {
    assertThatThrownBy(() -> new SharedCaches().injectedPods("a"))
        .hasMessageContaining("the KVCachePoolBinding controller is not registered");
    assertThatThrownBy(() -> new SharedCaches().deployments("a"))
        .hasMessageContaining("the ModelDeployment controller is not registered");
  }
}
