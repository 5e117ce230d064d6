package ai.gpustack.kvcache.cluster;

import java.util.Optional;
import java.util.function.Supplier;

/**
 * Work a thread may do only if no view it reads waits on the API server: an event loop answers a
 * review itself when the caches hold everything the review reads, and hands it to a thread that may
 * block when they do not. A view whose read would go out calls {@link #check()} first.
 */
public final class MemoryOnly {
  private static final ThreadLocal<Attempt> ATTEMPT = new ThreadLocal<>();

  private MemoryOnly() {}

  /** Thrown by {@link #check()} inside {@link #attempt}; the attempt then answers empty. */
  public static final class WouldBlock extends RuntimeException {
    private static final long serialVersionUID = 1L;

    private WouldBlock() {
      super("a read would wait on the API server", null, false, false);
    }
  }

  private static final class Attempt {
    boolean blocked;
  }

  /**
   * What {@code work} returns when every read it makes is answered from memory; empty when one
   * would have waited, whatever {@code work} made of the {@link WouldBlock} it was thrown. Side
   * effects are the caller's to keep out of {@code work}: it runs again elsewhere.
   */
  public static <T> Optional<T> attempt(Supplier<T> work) {
    Attempt outer = ATTEMPT.get();
    Attempt attempt = new Attempt();
    ATTEMPT.set(attempt);
    try {
      T result = work.get();
      return attempt.blocked ? Optional.empty() : Optional.of(result);
    } catch (WouldBlock e) {
      return Optional.empty();
    } finally {
      if (outer == null) {
        ATTEMPT.remove();
      } else {
        ATTEMPT.set(outer);
        outer.blocked |= attempt.blocked;
      }
    }
  }

  /** Before a read that waits on something outside the process: throws inside an attempt. */
  public static void check() {
    Attempt attempt = ATTEMPT.get();
    if (attempt != null) {
      attempt.blocked = true;
      throw new WouldBlock();
    }
  }
}
