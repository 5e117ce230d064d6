package ai.gpustack.kvcache.operator.migrate;

import ai.gpustack.kvcache.resources.KVCachePoolBinding;
import java.util.List;

/**
 * A migration's plan: the Binding it leaves and the one it creates, every workload it moves (or
 * leaves to the user), the steps in order, and every refusal those steps would meet, found before
 * anything is touched. Immutable.
 */
public record Plan(
    MigrationRequest request,
    KVCachePoolBinding oldBinding,
    KVCachePoolBinding newBinding,
    MigrationRecord record,
    boolean resumed,
    List<Moved> deployments,
    List<Injected> injected,
    List<Step> steps,
    List<String> refusals,
    List<String> warnings) {
  public Plan {
    deployments = List.copyOf(deployments);
    injected = List.copyOf(injected);
    steps = List.copyOf(steps);
    refusals = List.copyOf(refusals);
    warnings = List.copyOf(warnings);
  }

  /** A ModelDeployment the plan moves, the name it ends under, and the replicas that restart. */
  public record Moved(String name, String engine, String replacement, List<String> restarts) {
    public Moved {
      restarts = List.copyOf(restarts);
    }
  }

  /**
   * A workload whose Pod template opts into injection through the old Binding: patched by the plan
   * ({@code --include-injected} and a kind whose template can change) or left to its owner, with
   * the edit its template needs; {@code pods} are its injected Pods now.
   */
  public record Injected(
      String kind, String name, String engine, boolean patched, List<String> pods, String edit) {
    public Injected {
      pods = List.copyOf(pods);
    }
  }

  /** Whether the plan can run: no step would be refused. */
  public boolean clean() {
    return refusals.isEmpty();
  }

  public String oldName() {
    return oldBinding.getMetadata().getNamespace() + "/" + oldBinding.getMetadata().getName();
  }

  public String newName() {
    return newBinding.getMetadata().getNamespace() + "/" + newBinding.getMetadata().getName();
  }
}
