/**
 * The engine contract. An engine module is a jar with one {@link ai.gpustack.kvcache.spi.Engine}
 * provider registered through {@code META-INF/services}; it ships the dtype spellings its engine
 * accepts per version, how its parser reads flags, and how a cache attachment is rendered onto its
 * argv. The {@link ai.gpustack.kvcache.spi.EngineRegistry} finds engines; everything else here is
 * pure, deterministic and thread-safe.
 */
@ValueStyle
package ai.gpustack.kvcache.spi;

import ai.gpustack.kvcache.api.ValueStyle;
