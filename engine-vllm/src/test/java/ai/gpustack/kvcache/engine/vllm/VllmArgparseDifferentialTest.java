package ai.gpustack.kvcache.engine.vllm;

import ai.gpustack.kvcache.spi.Engine;
import ai.gpustack.kvcache.tck.ArgparseDifferentialTest;

class VllmArgparseDifferentialTest extends ArgparseDifferentialTest {
  @Override
  protected Engine engine() {
    return new VllmEngine();
  }
}
