package ai.gpustack.kvcache.api;

import java.util.List;
import java.util.stream.Collectors;

/**
 * Thrown once with every problem found in one object. The message reads like the API server's:
 * {@code <subject> is invalid: [a, b]}.
 */
public final class ProblemsException extends IllegalArgumentException {
  private static final long serialVersionUID = 1L;

  private final String subject;
  private final transient List<Problem> problems;

  public ProblemsException(String subject, List<Problem> problems) {
    super(format(subject, problems));
    this.subject = subject;
    this.problems = List.copyOf(problems);
  }

  private static String format(String subject, List<Problem> problems) {
    String body = problems.stream().map(Problem::message).collect(Collectors.joining(", "));
    return subject + " is invalid: " + (problems.size() == 1 ? body : "[" + body + "]");
  }

  public String subject() {
    return subject;
  }

  public List<Problem> problems() {
    return problems;
  }
}
