package ai.gpustack.kvcache.engine.sglang;

import ai.gpustack.kvcache.spi.Engine;
import ai.gpustack.kvcache.tck.ReleaseFactsTest;

class SglangReleaseFactsTest extends ReleaseFactsTest {
  @Override
  protected Engine engine() {
    return new SglangEngine();
  }
}
