package ai.gpustack.kvcache.operator.migrate;

import com.fasterxml.jackson.databind.JsonNode;
import java.util.List;
import java.util.Optional;

/**
 * One step of a migration: what it does to which object, and the {@code kubectl} commands that do
 * the same by hand. {@code manifest} is the object a create step writes. Immutable.
 */
public record Step(
    int number,
    Action action,
    String kind,
    String namespace,
    String name,
    String summary,
    List<String> kubectl,
    Optional<JsonNode> manifest) {
  public Step {
    kubectl = List.copyOf(kubectl);
  }

  /** What a step does; each is idempotent against the cluster's state. */
  public enum Action {
    SETTING_OFF,
    CREATE_BINDING,
    CREATE_DEPLOYMENT,
    AWAIT_READY,
    DELETE_DEPLOYMENT,
    PATCH_TEMPLATE,
    RESTORE_SETTING,
    DELETE_BINDING
  }

  /** What the step does, as its progress line names it. */
  String describe() {
    return switch (action) {
      case SETTING_OFF -> "turn Setting " + name + " off";
      case RESTORE_SETTING -> "restore Setting " + name;
      case CREATE_BINDING, CREATE_DEPLOYMENT -> "create " + object();
      case AWAIT_READY -> "wait for " + object() + " to be Ready";
      case DELETE_DEPLOYMENT, DELETE_BINDING -> "delete " + object();
      case PATCH_TEMPLATE -> "point the Pod template of " + object() + " at the new Binding";
    };
  }

  /** {@code ModelDeployment team-a/chat}. */
  public String object() {
    return kind + " " + (namespace.isEmpty() ? "" : namespace + "/") + name;
  }
}
