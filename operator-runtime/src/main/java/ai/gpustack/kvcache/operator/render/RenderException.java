package ai.gpustack.kvcache.operator.render;

/** A deployment that cannot be rendered at all: an unknown engine, or no image to run. */
public final class RenderException extends RuntimeException {
  private static final long serialVersionUID = 1L;

  public RenderException(String message) {
    super(message, null, false, false);
  }
}
