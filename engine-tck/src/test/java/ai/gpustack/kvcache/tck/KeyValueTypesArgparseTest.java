package ai.gpustack.kvcache.tck;

import ai.gpustack.kvcache.spi.Engine;

/** Both dtype flags are read as argparse reads them, and both end at the Binding's value. */
class KeyValueTypesArgparseTest extends ArgparseDifferentialTest {
  @Override
  protected Engine engine() {
    return new KeyValueTypesEngine();
  }
}
