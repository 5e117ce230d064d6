package ai.gpustack.kvcache.engine.sglang;

import ai.gpustack.kvcache.spi.Engine;
import ai.gpustack.kvcache.tck.EngineContractTest;

class SglangEngineContractTest extends EngineContractTest {
  @Override
  protected Engine engine() {
    return new SglangEngine();
  }
}
