/**
 * Immutable domain values of gpustack-kvcache: the dtype a reuse domain binds, the specs and
 * statuses of the KV cache resources, the Settings that govern the dtype rule, and {@link
 * ai.gpustack.kvcache.api.Problems}, the one way every rule reports what is wrong.
 *
 * <p>Every value here is immutable and null-free: absent fields are {@link java.util.Optional} or
 * empty lists. Abstract definitions are named {@code *Def} and package-private; use the generated
 * public type of the same name without the suffix ({@code ReuseDomain.builder()}).
 */
@ValueStyle
package ai.gpustack.kvcache.api;
