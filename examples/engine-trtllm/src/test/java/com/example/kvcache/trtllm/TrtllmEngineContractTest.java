package com.example.kvcache.trtllm;

import ai.gpustack.kvcache.spi.Engine;
import ai.gpustack.kvcache.tck.EngineContractTest;

/** The whole contract every engine module passes, in one line. */
class TrtllmEngineContractTest extends EngineContractTest {
  @Override
  protected Engine engine() {
    return new TrtllmEngine();
  }
}
