/**
 * The webhook's serving certificate when no cert-manager issues it: a CA the operator generates,
 * kept in a Secret all replicas share, and the webhook configurations' {@code caBundle} kept equal
 * to it.
 */
package ai.gpustack.kvcache.operator.certs;
