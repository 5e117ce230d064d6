package com.example.kvcache.lmdeploy;

import ai.gpustack.kvcache.spi.Engine;
import ai.gpustack.kvcache.tck.ArgparseDifferentialTest;

/**
 * The flag reader against Python's argparse, built from each release's extracted flag list. That
 * the lists are LMDeploy's own is what tools/extract_flags.py proves, by running LMDeploy's parser.
 */
class LmdeployArgparseTest extends ArgparseDifferentialTest {
  @Override
  protected Engine engine() {
    return new LmdeployEngine();
  }
}
