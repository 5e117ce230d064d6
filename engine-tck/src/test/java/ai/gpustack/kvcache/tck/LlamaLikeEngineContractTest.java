package ai.gpustack.kvcache.tck;

import ai.gpustack.kvcache.spi.Engine;

/**
 * The kit holds for an engine that is not argparse, declared truthfully: no inline values, exact
 * names, short aliases, build numbers and a translated engine value.
 */
class LlamaLikeEngineContractTest extends EngineContractTest {
  @Override
  protected Engine engine() {
    return new LlamaLikeEngine();
  }
}
