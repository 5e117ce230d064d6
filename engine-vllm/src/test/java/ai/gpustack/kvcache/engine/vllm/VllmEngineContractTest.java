package ai.gpustack.kvcache.engine.vllm;

import ai.gpustack.kvcache.spi.Engine;
import ai.gpustack.kvcache.tck.EngineContractTest;

class VllmEngineContractTest extends EngineContractTest {
  @Override
  protected Engine engine() {
    return new VllmEngine();
  }
}
