package com.example.kvcache.llamacpp;

import ai.gpustack.kvcache.spi.Engine;
import ai.gpustack.kvcache.tck.EngineContractTest;

/** The whole contract every engine module passes, in one line. */
class LlamacppEngineContractTest extends EngineContractTest {
  @Override
  protected Engine engine() {
    return new LlamacppEngine();
  }

  /** {@code -m} takes a GGUF file. */
  @Override
  protected String sampleModel() {
    return "/models/example-model-Q4_K_M.gguf";
  }
}
