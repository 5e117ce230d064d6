package ai.gpustack.kvcache.spi;

class OtherTestEngine extends TestEngine {
  OtherTestEngine(String id) {
    super(id);
  }
}
