package com.example.kvcache.lmdeploy;

import ai.gpustack.kvcache.spi.Engine;
import ai.gpustack.kvcache.tck.EngineContractTest;

/** The whole contract every engine module passes, in one line. */
class LmdeployEngineContractTest extends EngineContractTest {
  @Override
  protected Engine engine() {
    return new LmdeployEngine();
  }
}
