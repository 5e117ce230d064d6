/**
 * The one attachment path. {@link ai.gpustack.kvcache.attach.AttachmentResolver} turns a Binding
 * reference, an engine and its version, the Settings in force and a read-only cluster view into one
 * {@link ai.gpustack.kvcache.attach.Attachment}: the Binding, pool and backend, the store endpoint
 * and tenant, the dtype with its ruling, or the one {@link ai.gpustack.kvcache.attach.Refusal} that
 * stops it. Operator rendering, Pod injection, preflight, {@code kvcache render}, {@code kvcache
 * review} and the sandbox all call it, so every rule about attaching is written once. Pure: no
 * client, no clock.
 *
 * <p>Another operator embedding the library starts at {@link
 * ai.gpustack.kvcache.attach.KvCacheArgs}: the same rules from plain values (engine, version, dtype
 * once, endpoint, tenant, the workload's own args), refusals worded by the same catalog at the
 * caller's field paths.
 */
@ValueStyle
package ai.gpustack.kvcache.attach;

import ai.gpustack.kvcache.api.ValueStyle;
