package ai.gpustack.kvcache.spi;

/** No registered engine answers to a name; the message lists the registered ones and the fix. */
public final class UnknownEngineException extends IllegalArgumentException {
  private static final long serialVersionUID = 1L;

  private final String name;

  UnknownEngineException(String name, String message) {
    super(message);
    this.name = name;
  }

  /** The name that was asked for. */
  public String name() {
    return name;
  }
}
