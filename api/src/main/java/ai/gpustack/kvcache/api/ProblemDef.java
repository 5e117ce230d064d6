package ai.gpustack.kvcache.api;

import java.util.Optional;
import org.immutables.value.Value;

/**
 * One violation: the field path as Kubernetes writes it ({@code spec.roles[0].extraArgs[1]}), the
 * kind of error, the offending value as written, a detail saying the rule and the fix, and, where a
 * rule names one, the reason a machine reads ({@code BindingNotFound}). Immutable.
 */
@Value.Immutable
interface ProblemDef {
  String field();

  ProblemType type();

  Optional<String> value();

  String detail();

  /**
   * The cause as one CamelCase word, where a rule names one: the same word the operator's
   * conditions carry for the same cause. Not part of {@link #message()}.
   */
  Optional<String> reason();

  /** The message exactly as a Kubernetes field error prints it. */
  default String message() {
    StringBuilder s = new StringBuilder(field()).append(": ").append(type().wording());
    if (type().showsValue() && value().isPresent()) {
      s.append(": ").append(Quoting.quote(value().get()));
    }
    if (!detail().isEmpty()) {
      s.append(": ").append(detail());
    }
    return s.toString();
  }
}
