package ai.gpustack.kvcache.spi;

import ai.gpustack.kvcache.api.KvFormat;
import java.util.SortedMap;
import org.immutables.value.Value;

/**
 * The spellings that store another format on one platform than on the engine's default one (vLLM's
 * {@code fp8} on AMD MI300 is {@code float8_e4m3fnuz}), and where that was read.
 */
@Value.Immutable
abstract class PlatformFormatsDef {
  /** The platform, as people name it: {@code ROCm (MI300, gfx942)}. */
  public abstract String platform();

  @Value.NaturalOrder
  public abstract SortedMap<String, KvFormat> formats();

  public abstract String source();
}
