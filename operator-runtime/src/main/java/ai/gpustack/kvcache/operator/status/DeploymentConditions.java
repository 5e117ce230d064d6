package ai.gpustack.kvcache.operator.status;

import static ai.gpustack.kvcache.api.Quoting.quote;

import ai.gpustack.kvcache.api.Condition;
import ai.gpustack.kvcache.attach.Attachment;
import ai.gpustack.kvcache.attach.DtypeRuling;
import ai.gpustack.kvcache.attach.Refusal;
import ai.gpustack.kvcache.operator.render.Rendering;
import ai.gpustack.kvcache.resources.KVCachePoolBinding;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;

/**
 * A ModelDeployment's DomainRegistered, CacheAttached and DtypeAccepted conditions, read off its
 * rendering: the attachment's refusal and dtype ruling say everything, so nothing is decided here
 * that the ruling did not decide. Pure.
 */
public final class DeploymentConditions {
  public static final String DOMAIN_REGISTERED = "DomainRegistered";
  public static final String CACHE_ATTACHED = "CacheAttached";
  public static final String DTYPE_ACCEPTED = "DtypeAccepted";

  private DeploymentConditions() {}

  /** The three conditions of {@code rendering}, with the dtype owned or not by the Setting. */
  public static List<Condition> of(Rendering rendering, boolean dtypeOwned) {
    return rendering
        .attachment()
        .map(a -> naming(rendering, a, dtypeOwned))
        .orElseGet(
            () ->
                List.of(
                    Conditions.of(
                        DOMAIN_REGISTERED, true, "NotApplicable", "spec.kvCache names no pool"),
                    Conditions.of(
                        CACHE_ATTACHED, true, "NotApplicable", "spec.kvCache names no pool"),
                    Conditions.of(
                        DTYPE_ACCEPTED, true, "NotApplicable", "spec.kvCache names no pool")));
  }

  private static List<Condition> naming(Rendering rendering, Attachment a, boolean dtypeOwned) {
    List<Condition> out = new ArrayList<>();
    Optional<Refusal> detached = a.refusal().filter(r -> !r.aboutDtype());
    out.add(domainRegistered(a, detached));
    out.add(cacheAttached(a, detached, rendering.allTakeOver()));
    out.add(dtypeAccepted(rendering, a.dtype(), dtypeOwned));
    return out;
  }

  /** Registered unless the Binding is missing or being deleted. */
  private static Condition domainRegistered(Attachment a, Optional<Refusal> detached) {
    Optional<Refusal> unregistered =
        detached.filter(
            r ->
                r.reason().equals(Refusal.BINDING_NOT_FOUND)
                    || r.reason().equals(Refusal.BINDING_DELETING));
    return unregistered
        .map(r -> Conditions.of(DOMAIN_REGISTERED, false, r.reason(), r.message()))
        .orElseGet(
            () -> {
              KVCachePoolBinding b = a.binding().orElseThrow();
              return Conditions.of(
                  DOMAIN_REGISTERED,
                  true,
                  "Registered",
                  "domain "
                      + quote(b.getSpec().domain().name())
                      + " on pool "
                      + quote(b.getSpec().poolRef().name()));
            });
  }

  /** Unknown when the operator attaches nothing; else attached unless refused. */
  private static Condition cacheAttached(
      Attachment a, Optional<Refusal> detached, boolean allTakeOver) {
    if (allTakeOver) {
      return Conditions.unknown(
          CACHE_ATTACHED, "Unmanaged", "every role sets command: the operator attaches nothing");
    }
    return detached
        .map(r -> Conditions.of(CACHE_ATTACHED, false, r.reason(), r.message()))
        .orElseGet(
            () ->
                Conditions.of(
                    CACHE_ATTACHED,
                    true,
                    "Attached",
                    "replicas connect to " + a.endpoint().orElseThrow()));
  }

  /** The ruling's word, unless no dtype is rendered or the rollout is held on it. */
  private static Condition dtypeAccepted(
      Rendering rendering, DtypeRuling ruling, boolean dtypeOwned) {
    if (!dtypeOwned) {
      return Conditions.of(
          DTYPE_ACCEPTED,
          true,
          "NotOwned",
          "model-deployment-kv-cache-dtype-owned is off: no dtype is rendered");
    } else if (rendering.allTakeOver() || ruling.outcome() == DtypeRuling.Outcome.UNRESOLVED) {
      return Conditions.of(DTYPE_ACCEPTED, true, "NotApplicable", "no dtype is rendered");
    } else if (rendering.isHeld()) {
      return Conditions.of(
          DTYPE_ACCEPTED, false, ruling.outcome().reason(), rendering.heldMessage().orElseThrow());
    }
    return Conditions.of(
        DTYPE_ACCEPTED, ruling.accepted(), ruling.outcome().reason(), ruling.message());
  }
}
