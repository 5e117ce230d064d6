package ai.gpustack.kvcache.observe;

/** What a replica's reported dtype says against its Binding's. */
public enum Verdict {
  /** The engine reports the Binding's dtype, or a spelling its engine stores in the same format. */
  MATCHES("matches"),
  /** The engine reports another dtype than the Binding declares. */
  DIFFERS("differs"),
  /** The engine reports nothing the module can read, or could not be reached. */
  NOT_REPORTED("not-reported"),
  /**
   * {@code model-deployment-kv-cache-dtype-owned} is off: the Binding's dtype is not handed out.
   */
  NOT_OWNED("not-owned");

  private final String word;

  Verdict(String word) {
    this.word = word;
  }

  /** As {@code kvcache verify -o json} prints it. */
  public String word() {
    return word;
  }
}
