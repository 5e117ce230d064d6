/**
 * What the engines actually run: the dtype each replica's argv hands its engine, the dtype the
 * engine reports on its own endpoint, and the verdict against the Binding. {@code kvcache verify},
 * the operator's {@code DtypeObserved} condition and the sandbox read replicas through this.
 */
package ai.gpustack.kvcache.observe;
