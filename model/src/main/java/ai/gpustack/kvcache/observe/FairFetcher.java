package ai.gpustack.kvcache.observe;

import io.fabric8.kubernetes.api.model.Pod;
import java.util.ArrayDeque;
import java.util.HashMap;
import java.util.Map;
import java.util.Queue;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * Shares reads fairly between namespaces: at most {@code limit} under way at once and at most
 * {@code perNamespace} of one namespace, the next free place going to the namespaces in turn. A
 * tenant whose engines answer slowly, or never within the deadline, holds only its own places, so
 * it delays only itself. Reads queue until a place is free; the queue holds at most one read per
 * Pod at a time because its callers read a Pod once until that read ends. Thread-safe.
 */
public final class FairFetcher implements ReportFetcher {
  /**
   * Reads at once, for the operator and the tools alike: each is an HTTP/2 stream, not a thread.
   */
  public static final int LIMIT = 32;

  /** Reads of one namespace at once. */
  public static final int PER_NAMESPACE = 4;

  private final ReportFetcher reads;
  private final int limit;
  private final int perNamespace;

  private final Map<String, Queue<Runnable>> waiting = new HashMap<>();
  private final Map<String, Integer> running = new HashMap<>();

  /** When each namespace with reads waiting or running was last given a place. */
  private final Map<String, Long> servedAt = new HashMap<>();

  private long turn;
  private int runningTotal;
  private final AtomicInteger draining = new AtomicInteger();

  public FairFetcher(ReportFetcher reads, int limit, int perNamespace) {
    if (limit < 1 || perNamespace < 1) {
      throw new IllegalArgumentException(
          "limit " + limit + " and perNamespace " + perNamespace + " must be at least 1");
    }
    this.reads = reads;
    this.limit = limit;
    this.perNamespace = perNamespace;
  }

  @Override
  public CompletableFuture<Fetch> fetch(Pod pod, int port, String path) {
    String namespace = String.valueOf(pod.getMetadata().getNamespace());
    CompletableFuture<Fetch> result = new CompletableFuture<>();
    Runnable start =
        () -> {
          CompletableFuture<Fetch> read;
          try {
            read = reads.fetch(pod, port, path);
          } catch (RuntimeException e) {
            read = CompletableFuture.failedFuture(e);
          }
          read.whenComplete(
              (fetch, error) -> {
                finished(namespace);
                result.complete(
                    error == null
                        ? fetch
                        : Fetch.failed("unreadable: " + error.getClass().getSimpleName()));
              });
        };
    synchronized (this) {
      waiting.computeIfAbsent(namespace, n -> new ArrayDeque<>()).add(start);
    }
    drain();
    return result;
  }

  private void finished(String namespace) {
    synchronized (this) {
      runningTotal--;
      running.merge(namespace, -1, (a, b) -> a + b == 0 ? null : a + b);
      if (!running.containsKey(namespace) && !waiting.containsKey(namespace)) {
        servedAt.remove(namespace);
      }
    }
    drain();
  }

  /**
   * Starts waiting reads while places are free, outside the lock; one thread at a time, the others
   * leaving a note to look again (a read that ends at once would otherwise recurse).
   */
  private void drain() {
    if (draining.getAndIncrement() != 0) {
      return;
    }
    int missed = 1;
    do {
      for (Runnable next = take(); next != null; next = take()) {
        next.run();
      }
      missed = draining.addAndGet(-missed);
    } while (missed != 0);
  }

  /**
   * The next read to start, counted as running: of the namespaces with a read waiting and a place
   * of their own free, the one served longest ago; null when none fits.
   */
  private synchronized Runnable take() {
    if (runningTotal >= limit) {
      return null;
    }
    String next = null;
    long oldest = Long.MAX_VALUE;
    for (String namespace : waiting.keySet()) {
      long at = servedAt.getOrDefault(namespace, 0L);
      if (at < oldest && running.getOrDefault(namespace, 0) < perNamespace) {
        next = namespace;
        oldest = at;
      }
    }
    if (next == null) {
      return null;
    }
    Queue<Runnable> queue = waiting.get(next);
    Runnable read = queue.poll();
    if (queue.isEmpty()) {
      waiting.remove(next);
    }
    running.merge(next, 1, Integer::sum);
    servedAt.put(next, ++turn);
    runningTotal++;
    return read;
  }
}
