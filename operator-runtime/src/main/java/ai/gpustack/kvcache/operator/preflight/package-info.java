/**
 * {@code kvcache preflight}: the upgrade guide's checks as one pure analysis over what a cluster or
 * a set of manifests holds, and its table and JSON renderings.
 */
package ai.gpustack.kvcache.operator.preflight;
