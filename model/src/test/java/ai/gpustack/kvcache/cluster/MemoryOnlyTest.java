package ai.gpustack.kvcache.cluster;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.Optional;
import org.junit.jupiter.api.Test;

class MemoryOnlyTest {
  /** A read through a cache, going out on a miss as the informers' view does. */
  static String read(boolean cached) {
    if (!cached) {
      MemoryOnly.check();
    }
    return cached ? "from memory" : "from the API server";
  }

  @Test
  void work_reading_only_memory_gives_its_answer() {
    assertThat(MemoryOnly.attempt(() -> read(true))).contains("from memory");
  }

  @Test
  void work_that_would_read_out_gives_none_even_when_it_swallowed_the_signal() {
    assertThat(MemoryOnly.attempt(() -> read(false))).isEmpty();
    assertThat(
            MemoryOnly.attempt(
                () -> {
                  try {
                    return read(false);
                  } catch (RuntimeException e) {
                    return "a plausible denial";
                  }
                }))
        .isEmpty();
  }

  @Test
  void outside_an_attempt_the_read_goes_out() {
    assertThat(read(false)).isEqualTo("from the API server");
    Optional<String> inner = MemoryOnly.attempt(() -> read(true));
    assertThat(inner).isPresent();
    assertThat(read(false)).as("after an attempt").isEqualTo("from the API server");
  }
}
