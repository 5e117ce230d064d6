package ai.gpustack.kvcache.api;

/** The kinds of field error Kubernetes reports, with the wording it uses for each. */
public enum ProblemType {
  REQUIRED("Required value", false),
  INVALID("Invalid value", true),
  FORBIDDEN("Forbidden", false),
  DUPLICATE("Duplicate value", true),
  NOT_FOUND("Not found", true),
  NOT_SUPPORTED("Unsupported value", true),
  TOO_MANY("Too many", false);

  private final String wording;
  private final boolean showsValue;

  ProblemType(String wording, boolean showsValue) {
    this.wording = wording;
    this.showsValue = showsValue;
  }

  /** How Kubernetes words this kind of error, e.g. {@code Invalid value}. */
  public String wording() {
    return wording;
  }

  /** Whether the offending value is quoted in the message, as Kubernetes does. */
  public boolean showsValue() {
    return showsValue;
  }
}
