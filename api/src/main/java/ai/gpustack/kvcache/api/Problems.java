package ai.gpustack.kvcache.api;

import com.fasterxml.jackson.databind.JsonMappingException;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Optional;
import java.util.function.Consumer;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Collectors;

/**
 * Every violation a rule found, in the order found, each with its field path. Rules add to one
 * {@code Problems} and it is thrown once, so a user sees all that is wrong with an object at once.
 *
 * <p>Not thread-safe while being filled; treat it as a value once handed on.
 */
public final class Problems {
  private static final Pattern MISSING =
      Pattern.compile("Cannot build \\w+, some of required attributes are not set \\[([^\\]]*)\\]");

  private final List<Problem> problems = new ArrayList<>();

  /** An empty collection to fill. */
  public static Problems create() {
    return new Problems();
  }

  /**
   * What a failed Jackson read of an object says, at the field it failed at: each required
   * attribute a builder missed, or the first line of the reason.
   */
  public static Problems ofReadFailure(Throwable failure) {
    JsonMappingException mapping = null;
    for (Throwable t = failure; t != null; t = t.getCause() == t ? null : t.getCause()) {
      if (t instanceof JsonMappingException m) {
        mapping = m;
      }
    }
    Problems problems = create();
    if (mapping == null) {
      return problems.invalid("object", null, firstLine(failure.getMessage()));
    }
    StringBuilder path = new StringBuilder();
    for (JsonMappingException.Reference ref : mapping.getPath()) {
      if (ref.getFieldName() != null) {
        path.append(path.length() == 0 ? "" : ".").append(ref.getFieldName());
      } else if (ref.getIndex() >= 0) {
        path.append('[').append(ref.getIndex()).append(']');
      }
    }
    String field = path.length() == 0 ? "object" : path.toString();
    Matcher missing = MISSING.matcher(String.valueOf(mapping.getOriginalMessage()));
    if (missing.find()) {
      for (String attribute : missing.group(1).split(",\\s*")) {
        problems.required(field + "." + attribute, "");
      }
      return problems;
    }
    return problems.invalid(field, null, firstLine(mapping.getOriginalMessage()));
  }

  private static String firstLine(String s) {
    return String.valueOf(s).lines().findFirst().orElse("");
  }

  /** Runs {@code rules} on a fresh collection and throws once if any of them reported a problem. */
  public static void check(String subject, Consumer<Problems> rules) {
    Problems problems = create();
    rules.accept(problems);
    problems.throwIfAny(subject);
  }

  public Problems add(Problem problem) {
    problems.add(problem);
    return this;
  }

  public Problems addAll(Problems other) {
    problems.addAll(other.problems);
    return this;
  }

  public Problems required(String field, String detail) {
    return add(Problem.builder().field(field).type(ProblemType.REQUIRED).detail(detail).build());
  }

  public Problems invalid(String field, String value, String detail) {
    return add(ProblemType.INVALID, field, value, detail);
  }

  public Problems forbidden(String field, String detail) {
    return add(Problem.builder().field(field).type(ProblemType.FORBIDDEN).detail(detail).build());
  }

  public Problems duplicate(String field, String value, String detail) {
    return add(ProblemType.DUPLICATE, field, value, detail);
  }

  public Problems notFound(String field, String value, String detail) {
    return add(ProblemType.NOT_FOUND, field, value, detail);
  }

  public Problems notSupported(String field, String value, String detail) {
    return add(ProblemType.NOT_SUPPORTED, field, value, detail);
  }

  public Problems tooMany(String field, String detail) {
    return add(Problem.builder().field(field).type(ProblemType.TOO_MANY).detail(detail).build());
  }

  private Problems add(ProblemType type, String field, String value, String detail) {
    return add(
        Problem.builder()
            .field(field)
            .type(type)
            .value(Optional.ofNullable(value))
            .detail(detail)
            .build());
  }

  public boolean isEmpty() {
    return problems.isEmpty();
  }

  public int size() {
    return problems.size();
  }

  /** The problems in the order they were found; unmodifiable. */
  public List<Problem> list() {
    return Collections.unmodifiableList(problems);
  }

  /** One line per problem. */
  public List<String> messages() {
    return problems.stream().map(Problem::message).collect(Collectors.toList());
  }

  /** Throws a {@link ProblemsException} naming {@code subject} if anything was found. */
  public void throwIfAny(String subject) {
    if (!problems.isEmpty()) {
      throw new ProblemsException(subject, List.copyOf(problems));
    }
  }

  @Override
  public String toString() {
    return String.join("\n", messages());
  }
}
