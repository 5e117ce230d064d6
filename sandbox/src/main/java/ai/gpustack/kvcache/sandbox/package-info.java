/**
 * An API server stand-in: fabric8's CRUD mock that also does what a real API server does around its
 * store, for {@code kubectl} and the operator alike: discovery, server-side tables, and the
 * admission chain, calling the same rules the webhook configurations register, in the same order. A
 * stand-in kubelet marks Pods Running and Ready. No operator runs here: {@code kvcache sandbox}
 * starts one against it.
 */
package ai.gpustack.kvcache.sandbox;
