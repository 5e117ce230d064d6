package ai.gpustack.kvcache.operator.cli;

import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ForkJoinWorkerThread;

/**
 * Prints whether {@code CompletableFuture}'s async work runs on the common pool: after loading the
 * {@code kvcache} entry point as its launcher does, or with {@code bare}, without it.
 */
public final class AsyncPoolProbe {
  private AsyncPoolProbe() {}

  public static void main(String[] args) throws Exception {
    if (args.length == 0) {
      Class.forName(KvCacheCommand.class.getName());
    }
    System.out.println(
        CompletableFuture.supplyAsync(
                () ->
                    Thread.currentThread() instanceof ForkJoinWorkerThread ? "pool" : "new thread")
            .get());
  }
}
