package ai.gpustack.kvcache.engine.sglang;

import ai.gpustack.kvcache.spi.Engine;
import ai.gpustack.kvcache.tck.ArgparseDifferentialTest;

class SglangArgparseDifferentialTest extends ArgparseDifferentialTest {
  @Override
  protected Engine engine() {
    return new SglangEngine();
  }
}
