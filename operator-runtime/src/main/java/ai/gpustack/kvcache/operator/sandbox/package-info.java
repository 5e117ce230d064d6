/**
 * The sandbox: the reference operator against an embedded API server (fabric8's CRUD mock) that
 * also does what a real API server does around it: discovery for {@code kubectl}, server-side
 * tables, and the admission chain, calling the same handlers the webhook configurations register,
 * in the same order. A simulated kubelet marks Pods Running and Ready.
 */
package ai.gpustack.kvcache.operator.sandbox;
