package ai.gpustack.kvcache.operator.reconcile;

import static org.assertj.core.api.Assertions.assertThat;

import ai.gpustack.kvcache.resources.KvCacheSerialization;
import io.fabric8.kubernetes.api.model.Status;
import io.fabric8.kubernetes.client.KubernetesClientException;
import org.junit.jupiter.api.Test;

/**
 * A Pod create refused because its namespace is going away is not an error to retry: the deployment
 * is deleted with the namespace. Any other 403 still is.
 */
class NamespaceTerminatingTest {
  // The body kube-apiserver's NamespaceLifecycle admission plugin answers with
  // (k8s.io/apiserver v0.36.3, pkg/admission/plugin/namespace/lifecycle/admission.go).
  private static final String TERMINATING =
      """
      {"kind":"Status","apiVersion":"v1","status":"Failure",
       "message":"pods \\"chat-server-0\\" is forbidden: unable to create new content in namespace team-a because it is being terminated",
       "reason":"Forbidden",
       "details":{"name":"chat-server-0","kind":"pods",
                  "causes":[{"reason":"NamespaceTerminating","message":"namespace team-a is being terminated","field":"metadata.namespace"}]},
       "code":403}
      """;

  private static final String RBAC =
      """
      {"kind":"Status","apiVersion":"v1","status":"Failure",
       "message":"pods is forbidden: User \\"system:serviceaccount:gpustack-system:kvcache-operator\\" cannot create resource \\"pods\\" in API group \\"\\" in the namespace \\"team-a\\"",
       "reason":"Forbidden","details":{"kind":"pods"},"code":403}
      """;

  @Test
  void a_create_refused_in_a_terminating_namespace_is_nothing_to_retry() {
    assertThat(ModelDeploymentReconciler.namespaceTerminating(refusal(TERMINATING))).isTrue();
  }

  @Test
  void a_create_refused_by_the_authorizer_still_fails_the_pass() {
    assertThat(ModelDeploymentReconciler.namespaceTerminating(refusal(RBAC))).isFalse();
  }

  private static KubernetesClientException refusal(String body) {
    return new KubernetesClientException(
        KvCacheSerialization.create().unmarshal(body, Status.class));
  }
}
