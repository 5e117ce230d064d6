package ai.gpustack.kvcache.operator.deploy;

import ai.gpustack.kvcache.operator.KvCacheOperator;
import ai.gpustack.kvcache.operator.certs.CertificateKeeper;
import ai.gpustack.kvcache.webhook.WebhookConfigurations;
import io.fabric8.kubernetes.api.model.rbac.PolicyRule;
import io.fabric8.kubernetes.api.model.rbac.PolicyRuleBuilder;
import java.util.List;

/**
 * Every permission {@code kvcache run} uses, and no other, in four roles: the kinds it reconciles
 * (cluster-wide), the workloads it runs (Pods and Events, per namespace when scoped), the Pod proxy
 * it observes engines through (optional), and the system namespace's Settings and Lease. RbacIT
 * runs the operator, the webhook's informers and the certificate keeper through a deployment's life
 * and checks that each verb here was asked for and nothing else was; the control-plane suite shows
 * the shipped roles suffice under a real authorizer. Discovery, SelfSubjectAccessReview and
 * SelfSubjectRulesReview need nothing: every authenticated user may use them.
 */
public final class Permissions {
  private static final String WORKER = "worker.gpustack.ai";
  private static final String SETTINGS = "gpustack.ai";

  private Permissions() {}

  /**
   * Cluster-wide: the kinds the operator reconciles. Bindings are read in every namespace whatever
   * the operator's scope, since a domain name is claimed per backend across namespaces.
   */
  public static List<PolicyRule> cluster() {
    return List.of(
        // get: the Java Operator SDK re-reads a deployment whose status or finalizer patch met a
        // conflict; without it a conflicting finalizer removal is refused and the deletion hangs
        rule(WORKER, List.of("modeldeployments"), "get", "list", "watch", "patch"),
        rule(WORKER, List.of("modeldeployments/status"), "patch"),
        rule(WORKER, List.of("kvcachepoolbindings"), "get", "list", "watch", "patch"),
        rule(WORKER, List.of("kvcachepoolbindings/status"), "patch", "update"),
        // get: the webhook reads a pool or backend its cache has not seen yet before refusing
        rule(WORKER, List.of("kvcachepools", "kvcachebackends"), "get", "list", "watch"),
        rule(WORKER, List.of("kvcachepools/status", "kvcachebackends/status"), "patch"));
  }

  /**
   * Where the operator runs workloads: the Pods it builds and watches, and the Events it writes
   * about them. Bound cluster-wide by default, or by a RoleBinding in each namespace of a scoped
   * operator ({@code kvcache run --namespaces}, the {@code namespaced} overlay).
   */
  public static List<PolicyRule> workloads() {
    return List.of(
        rule("", List.of("pods"), "list", "watch", "create", "delete"),
        // create only: an Event's name digests what it says, so AlreadyExists is "said already"
        rule("events.k8s.io", List.of("events"), "create"));
  }

  /**
   * What a Ready replica's engine reports of its KV-cache dtype, read through the API server's Pod
   * proxy. Optional: any HTTP path on any port of a Pod in its scope becomes readable to the
   * operator, around NetworkPolicy, so it is a role of its own; without it the operator does not
   * observe, and says so in DtypeObserved.
   */
  public static List<PolicyRule> observe() {
    return List.of(rule("", List.of("pods/proxy"), "get"));
  }

  /** In the system namespace only: the Settings, and the leader-election Lease. */
  public static List<PolicyRule> system() {
    return List.of(
        rule(SETTINGS, List.of("settings"), "get", "list", "watch", "create"),
        rule(SETTINGS, List.of("settings/status"), "patch"),
        // create cannot be limited by name: the name is not known until the object exists
        rule("coordination.k8s.io", List.of("leases"), "create"),
        // update: fabric8's lock renews with patch, but the Java Operator SDK asks a
        // SelfSubjectRulesReview for get, create and update before it starts, and refuses to
        // start without them (found on the real API server; the sandbox allowed everything)
        new PolicyRuleBuilder()
            .withApiGroups("coordination.k8s.io")
            .withResources("leases")
            .withResourceNames(KvCacheOperator.LEASE)
            .withVerbs("get", "update", "patch")
            .build());
  }

  /** Cluster-wide, with {@code --self-signed-webhook-cert}: the two webhook configurations. */
  public static List<PolicyRule> selfSignedCluster() {
    return List.of(
        new PolicyRuleBuilder()
            .withApiGroups("admissionregistration.k8s.io")
            .withResources("mutatingwebhookconfigurations", "validatingwebhookconfigurations")
            .withResourceNames(WebhookConfigurations.NAME)
            .withVerbs("get", "patch")
            .build());
  }

  /** In the system namespace, with {@code --self-signed-webhook-cert}: the certificate Secret. */
  public static List<PolicyRule> selfSignedSystem() {
    return List.of(
        // create cannot be limited by name: the name is not known until the object exists
        rule("", List.of("secrets"), "create"),
        new PolicyRuleBuilder()
            .withApiGroups("")
            .withResources("secrets")
            .withResourceNames(CertificateKeeper.SECRET)
            .withVerbs("get", "update")
            .build());
  }

  private static PolicyRule rule(String group, List<String> resources, String... verbs) {
    return new PolicyRuleBuilder()
        .withApiGroups(group)
        .withResources(resources)
        .withVerbs(verbs)
        .build();
  }
}
