package ai.gpustack.kvcache.operator;

/**
 * Gives the JVM's common pool at least two threads. On two CPUs or fewer it gets one, and then
 * {@code CompletableFuture}'s default executor starts a new thread per task. The JDK's HTTP client,
 * which the Kubernetes client uses, hands every response to that executor: a 2,000-deployment cold
 * start started 57,000 threads, one per API request.
 */
public final class CommonPool {
  private static final String PARALLELISM = "java.util.concurrent.ForkJoinPool.common.parallelism";

  private CommonPool() {}

  /**
   * Sets the common pool's parallelism to at least two unless the command line set it. Works only
   * before anything starts the pool, so call it first in {@code main}.
   */
  public static void atLeastTwoThreads() {
    if (System.getProperty(PARALLELISM) == null) {
      int cpus = Runtime.getRuntime().availableProcessors();
      System.setProperty(PARALLELISM, Integer.toString(Math.max(2, cpus - 1)));
    }
  }
}
