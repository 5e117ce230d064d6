package ai.gpustack.kvcache.sandbox;

/**
 * A request the API server refuses, with the Status it answers. Handlers throw it; {@link
 * SandboxDispatcher#dispatch} alone writes it out.
 */
final class StatusException extends RuntimeException {
  private static final long serialVersionUID = 1L;

  private final transient Statuses.Status status;

  StatusException(Statuses.Status status) {
    // No stack trace: a refusal is an answer, not a failure.
    super(status.body().path("message").asText(), null, false, false);
    this.status = status;
  }

  Statuses.Status status() {
    return status;
  }
}
