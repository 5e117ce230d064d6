package com.example.kvcache.lmdeploy;

import ai.gpustack.kvcache.spi.Engine;
import ai.gpustack.kvcache.tck.ReleaseFactsTest;

/** The TSV the module reads against the wheels on PyPI it was written from. */
class LmdeployReleaseFactsTest extends ReleaseFactsTest {
  @Override
  protected Engine engine() {
    return new LmdeployEngine();
  }
}
