/**
 * {@code kvcache preflight}: the upgrade guide's checks as one analysis over what a cluster or a
 * set of manifests holds (read, never changed), and its table and JSON renderings. Verdicts come
 * from the webhook's rules and the operator's renderer, which resolve attachments as the cluster
 * will.
 */
package ai.gpustack.kvcache.operator.preflight;
