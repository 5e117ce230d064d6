package ai.gpustack.kvcache.admission;

/**
 * A review that cannot be answered: malformed, of the wrong kind, or too large. One line, no trace.
 */
public final class AdmissionException extends RuntimeException {
  private static final long serialVersionUID = 1L;

  private final int status;

  public AdmissionException(int status, String reason) {
    super(reason, null, false, false);
    this.status = status;
  }

  /** The HTTP status to answer with (4xx). */
  public int status() {
    return status;
  }
}
