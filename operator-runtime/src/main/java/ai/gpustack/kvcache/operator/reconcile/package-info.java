/**
 * The reconcilers of the reference operator, on the Java Operator SDK without server-side apply.
 * They stay thin: what a resource should look like comes from {@code operator.render}; they read
 * cluster state from their own event-source caches, so the event that woke them and the state they
 * read are the same.
 */
package ai.gpustack.kvcache.operator.reconcile;
