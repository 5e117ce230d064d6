/**
 * The reconcilers of the reference operator, on the Java Operator SDK without server-side apply.
 * They stay thin: what a resource should look like comes from {@code operator.render}, the next
 * rollout step from {@link ai.gpustack.kvcache.operator.reconcile.Rollout}, what they read from
 * {@code operator.informers} (their own event-source caches, so the event that woke them and the
 * state they read are the same), and what they report from {@code operator.status}.
 */
package ai.gpustack.kvcache.operator.reconcile;
