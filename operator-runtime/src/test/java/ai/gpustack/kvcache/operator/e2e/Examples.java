package ai.gpustack.kvcache.operator.e2e;

import static org.assertj.core.api.Assertions.assertThat;

import ai.gpustack.kvcache.operator.Shell;
import java.time.Duration;

/** {@code examples/sandbox} on the real control plane, applied as its kustomization says. */
final class Examples {
  private Examples() {}

  /**
   * {@code kubectl kustomize examples/sandbox | kubectl apply -f -}, then waits until every
   * ModelDeployment of team-a has a phase. Idempotent: a second apply changes nothing.
   */
  static void apply(Shell kubectl) {
    kubectl
        .sh(
            "kubectl kustomize "
                + Installation.REPO.resolve("examples/sandbox")
                + " | kubectl apply -f -")
        .ok();
    Shell.Run phases =
        kubectl.until(
            "kubectl get md -n team-a -o jsonpath='{range .items[*]}{.status.phase}{\"\\n\"}{end}'",
            r -> r.out().lines().count() >= 3 && r.out().lines().noneMatch(String::isBlank),
            Duration.ofSeconds(90));
    assertThat(phases.out().lines().count()).isGreaterThanOrEqualTo(3);
  }

  /** Sets {@code model-deployment-kv-cache-dtype-owned} as the upgrade guide does. */
  static void setting(Shell kubectl, String value) {
    kubectl
        .kubectl(
            "-n gpustack-system patch setting model-deployment-kv-cache-dtype-owned --type merge"
                + " -p '{\"spec\":{\"value\":\""
                + value
                + "\"}}'")
        .ok();
  }
}
