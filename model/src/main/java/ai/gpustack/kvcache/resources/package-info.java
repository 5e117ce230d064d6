/**
 * The custom resources as fabric8 {@code CustomResource} classes over the immutable specs and
 * statuses of {@code ai.gpustack.kvcache.api}, the one serialization that reads and writes them,
 * the label and annotation keys the system uses, and what the operator reads off its replicas.
 */
package ai.gpustack.kvcache.resources;
