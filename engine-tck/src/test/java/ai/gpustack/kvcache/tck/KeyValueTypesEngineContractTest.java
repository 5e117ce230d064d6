package ai.gpustack.kvcache.tck;

import ai.gpustack.kvcache.spi.Engine;

/** The kit holds for a dtype handed over as two flags. */
class KeyValueTypesEngineContractTest extends EngineContractTest {
  @Override
  protected Engine engine() {
    return new KeyValueTypesEngine();
  }
}
