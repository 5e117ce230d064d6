package ai.gpustack.kvcache.operator.explain;

import static ai.gpustack.kvcache.api.Quoting.quote;

import ai.gpustack.kvcache.api.Condition;
import ai.gpustack.kvcache.api.EffectiveSettings;
import ai.gpustack.kvcache.api.Quoting;
import ai.gpustack.kvcache.api.SettingDefinition;
import ai.gpustack.kvcache.api.Settings;
import ai.gpustack.kvcache.operator.explain.Explanation.ArgvFlags;
import ai.gpustack.kvcache.operator.explain.Explanation.AttachedDeployment;
import ai.gpustack.kvcache.operator.explain.Explanation.AttachedPod;
import ai.gpustack.kvcache.operator.explain.Explanation.AttachmentPath;
import ai.gpustack.kvcache.operator.explain.Explanation.BindingSpec;
import ai.gpustack.kvcache.operator.explain.Explanation.ContainerArgv;
import ai.gpustack.kvcache.operator.explain.Explanation.DeploymentSpec;
import ai.gpustack.kvcache.operator.explain.Explanation.EngineChoice;
import ai.gpustack.kvcache.operator.explain.Explanation.EngineDtype;
import ai.gpustack.kvcache.operator.explain.Explanation.Injection;
import ai.gpustack.kvcache.operator.explain.Explanation.KvFormatFlag;
import ai.gpustack.kvcache.operator.explain.Explanation.ManagedPod;
import ai.gpustack.kvcache.operator.explain.Explanation.OwnedFlag;
import ai.gpustack.kvcache.operator.explain.Explanation.Replica;
import ai.gpustack.kvcache.operator.explain.Explanation.RoleExplanation;
import ai.gpustack.kvcache.operator.explain.Explanation.Status;
import ai.gpustack.kvcache.operator.explain.Explanation.Verdict;
import ai.gpustack.kvcache.resources.Keys;
import java.io.PrintWriter;
import java.util.Locale;

/** An {@link Explanation} for a person: one line per fact, with the field it comes from. */
public final class ExplanationText {
  private final PrintWriter out;

  public ExplanationText(PrintWriter out) {
    this.out = out;
  }

  public void print(Explanation explanation) {
    if (explanation instanceof Explanation.Deployment d) {
      deployment(d);
    } else if (explanation instanceof Explanation.Pod p) {
      pod(p);
    } else if (explanation instanceof Explanation.Binding b) {
      binding(b);
    }
  }

  private void deployment(Explanation.Deployment d) {
    out.println("ModelDeployment " + d.namespace() + "/" + d.name());
    if (d.spec().isEmpty()) {
      out.println("  it has no spec: nothing is rendered");
      return;
    }
    DeploymentSpec spec = d.spec().get();
    engine(spec.engine());
    settings(spec.settings());
    if (!spec.kvCache()) {
      out.println();
      out.println(
          "spec.kvCache is absent: no pool is attached, nothing is rendered and every role keeps"
              + " its own --kv-cache-dtype.");
    }
    spec.attachment()
        .ifPresent(
            a -> {
              out.println();
              attachment(a);
            });
    spec.renderFailure()
        .ifPresent(
            message -> {
              out.println();
              out.println("It does not render: " + message);
            });
    spec.roles().forEach(this::role);
    status(spec.status());
  }

  private void role(RoleExplanation role) {
    out.println();
    out.println(
        "spec.roles["
            + role.index()
            + "] "
            + quote(role.name())
            + " ("
            + role.kind()
            + ", "
            + role.replicas()
            + (role.replicas() == 1 ? " replica" : " replicas")
            + "): "
            + (role.takeOver()
                ? "take-over (command set): the operator adds nothing to its argv, and its own"
                    + " --kv-cache-dtype is its own"
                : "managed: the operator builds its command"));
    role.flags().ifPresent(this::flags);
    role.renders().ifPresent(command -> out.println("  renders: " + shown(command)));
    role.held()
        .ifPresent(
            reason -> out.println("  held: replicas keep their last good render (" + reason + ")"));
    role.pods().forEach(this::replica);
  }

  private void pod(Explanation.Pod pod) {
    out.println("Pod " + pod.namespace() + "/" + pod.name());
    if (pod.managed().isPresent()) {
      managed(pod.managed().get());
    } else if (pod.injection().isEmpty()) {
      out.println(
          "  not attached: it has no label "
              + Keys.INJECT
              + "=\"true\" and no ModelDeployment owns it, so nothing is injected or refused");
    } else {
      injection(pod.injection().get());
    }
  }

  private void managed(ManagedPod pod) {
    out.println(
        "  a replica of ModelDeployment "
            + pod.owner()
            + " (label "
            + Keys.INSTANCE
            + "), role "
            + pod.role()
            + ", ordinal "
            + pod.ordinal()
            + ": the operator built its command; `kvcache explain md/"
            + pod.owner()
            + "` tells why");
    pod.containers().forEach(this::container);
    pod.replica().ifPresent(this::replica);
  }

  private void injection(Injection pod) {
    out.println(
        "  opts into injection (label " + Keys.INJECT + "=\"true\"); metadata.annotations:");
    pod.annotations().forEach(a -> out.println("    " + a.key() + ": " + quote(a.value())));
    engine(pod.engine());
    settings(pod.settings());
    pod.attachment()
        .ifPresent(
            a -> {
              out.println();
              attachment(a);
            });
    out.println();
    if (pod.injected().isEmpty()) {
      out.println(
          "Not injected: no "
              + Keys.INJECTED
              + " record; it was admitted while the webhook did not act on it (the Setting off, or"
              + " the webhook not installed)");
      return;
    }
    var injected = pod.injected().get();
    out.println(
        "Injected: metadata.annotations[" + Keys.INJECTED + "] = " + shown(injected.record()));
    injected.containers().forEach(this::container);
    injected.replica().ifPresent(this::replica);
  }

  private void container(ContainerArgv c) {
    out.println("  spec.containers[" + c.index() + "] " + quote(c.name()) + ": " + shown(c.argv()));
    for (OwnedFlag flag : c.owned()) {
      out.println("    " + flag.path() + ": " + reading(flag));
    }
  }

  private void binding(Explanation.Binding b) {
    out.println("KVCachePoolBinding " + b.namespace() + "/" + b.name());
    if (b.spec().isEmpty()) {
      out.println("  it has no spec");
      return;
    }
    BindingSpec spec = b.spec().get();
    pool(spec);
    settings(spec.settings());
    out.println();
    out.println(
        "spec.domain.dtype "
            + quote(spec.domain().dtype())
            + " per registered engine (newest table):");
    spec.engines().forEach(this::engineDtype);
    out.println();
    out.println("Attached through it (namespace " + b.namespace() + "):");
    spec.deployments().forEach(this::attached);
    spec.pods().forEach(this::attached);
    if (spec.deployments().isEmpty() && spec.pods().isEmpty()) {
      out.println("  nothing");
    }
    spec.usedBy()
        .ifPresent(
            usedBy -> {
              out.println();
              out.println("status.usedBy: " + (usedBy.isEmpty() ? "empty" : usedBy));
            });
    status(spec.status());
  }

  /** The domain, the pool and backend it names, and whether another Binding claims the domain. */
  private void pool(BindingSpec spec) {
    var domain = spec.domain();
    out.println(
        "  spec.domain: name "
            + quote(domain.name())
            + ", blockSize "
            + domain.blockSize()
            + ", dtype "
            + quote(domain.dtype())
            + " (every field immutable)");
    out.println(
        "  spec.poolRef.name "
            + quote(spec.pool())
            + (!spec.poolFound()
                ? ": no such KVCachePool"
                : " → KVCachePool "
                    + spec.pool()
                    + ", backend "
                    + spec.backend().map(b -> quote(b)).orElse("(none)")));
    out.println(
        "  domain claim: "
            + (spec.sharing().isEmpty()
                ? "no other Binding on backend "
                    + spec.backend().orElse("?")
                    + " names "
                    + quote(domain.name())
                : "also named by "
                    + spec.sharing()
                    + " on the same backend (one was admitted before the claim rule)"));
  }

  private void engineDtype(EngineDtype e) {
    out.println(
        "  "
            + e.engine()
            + ": "
            + (e.accepts()
                ? "accepts it, stored as " + e.format().orElse("?")
                : "does not accept it"));
  }

  private void attached(AttachedDeployment md) {
    out.println(
        "  ModelDeployment "
            + md.name()
            + " ("
            + md.engine()
            + md.version().map(v -> " " + v).orElse("")
            + "): "
            + verdict(md.verdict())
            + ", phase "
            + md.phase().orElse("-"));
  }

  private void attached(AttachedPod pod) {
    out.println(
        "  Pod "
            + pod.name()
            + " (injected, "
            + pod.engine()
            + pod.version().map(v -> " " + v).orElse("")
            + "): "
            + verdict(pod.verdict()));
  }

  /** What the Binding is to one attached workload, in a few words: the ruling and the format. */
  private static String verdict(Verdict v) {
    if (!v.registered()) {
      return "engine not registered";
    }
    return v.refusal()
        .map(r -> "refused (" + r + ")")
        .orElse(
            v.outcome().toLowerCase(Locale.ROOT).replace('_', ' ')
                + v.format().map(f -> ", stored as " + f).orElse(""));
  }

  private void engine(EngineChoice e) {
    if (e.module().isEmpty()) {
      out.println(
          "  "
              + e.field()
              + ".name "
              + quote(e.name())
              + ": no registered engine has this id (registered: "
              + e.registered()
              + ")");
      return;
    }
    var module = e.module().get();
    out.println(
        "  "
            + e.field()
            + " "
            + quote(e.name())
            + " → engine module "
            + module.id()
            + " ("
            + module.artifact()
            + "); version "
            + e.version().map(v -> quote(v)).orElse("absent (the newest table)")
            + " selects the spelling table "
            + module.table());
  }

  private void settings(EffectiveSettings effective) {
    out.println();
    out.println("Settings in force (namespace " + Settings.NAMESPACE + "):");
    for (SettingDefinition definition : Settings.catalog()) {
      out.println("  " + definition.name() + ": " + setting(definition, effective));
    }
  }

  private static String setting(SettingDefinition definition, EffectiveSettings effective) {
    if (definition.name().equals(Settings.KV_CACHE_DTYPE_OWNED.name())) {
      return effective.kvCacheDtypeOwned()
          ? "on: the Binding's dtype is rendered, and anyone else naming the flag is refused"
          : "off: nothing is rendered or refused";
    }
    if (definition.name().equals(Settings.KV_CACHE_DTYPE_SPELLING_CHECK.name())) {
      return effective.spellingCheck()
          + switch (effective.spellingCheck()) {
            case Enforce -> ": a dtype the engine rejects is refused, a stored deployment held";
            case Warn -> ": a dtype the engine rejects is passed with a warning";
            case Off -> ": dtypes are passed unchecked";
          };
    }
    return definition.defaultValue();
  }

  private void attachment(AttachmentPath a) {
    out.println("Attachment (" + a.field() + " = " + quote(a.name()) + "):");
    a.domain()
        .ifPresent(
            d ->
                out.println(
                    "  KVCachePoolBinding "
                        + a.namespace()
                        + "/"
                        + a.name()
                        + ": domain "
                        + quote(d.name())
                        + ", blockSize "
                        + d.blockSize()
                        + ", dtype "
                        + quote(d.dtype())
                        + " (spec.domain)"));
    a.pool()
        .ifPresent(
            p ->
                out.println(
                    "  spec.poolRef.name → KVCachePool "
                        + p.pool()
                        + ", spec.backends[0] → "
                        + p.backend()
                            .map(b -> "KVCacheBackend " + b)
                            .orElse("no readable backend")));
    a.endpoint()
        .ifPresent(
            e ->
                out.println(
                    "  store endpoint "
                        + e.address()
                        + (e.fromBackend()
                            ? " (spec.connection.external.clientEndpoint)"
                            : " (the pool's status.clientEndpoint)")
                        + e.tenant()
                            .map(
                                t -> ", tenant " + quote(t) + " (the domain name; multiTenancy on)")
                            .orElse(", no tenant (multiTenancy off)")));
    out.println("  dtype: " + a.outcome() + ": " + a.message());
    ruling(a);
  }

  /** The format the dtype is stored as, the warnings, the refusal and the way out of it. */
  private void ruling(AttachmentPath a) {
    a.format()
        .ifPresent(
            f ->
                out.println(
                    "  format: "
                        + f.engine()
                        + " stores "
                        + quote(f.dtype())
                        + " as "
                        + f.format()
                        + " ("
                        + f.description()
                        + ")"));
    a.warnings().forEach(w -> out.println("  warning: " + w));
    a.refusal()
        .ifPresentOrElse(
            r ->
                out.println(
                    "  refused at "
                        + r.field()
                        + " ("
                        + r.reason()
                        + ")"
                        + (r.message().equals(a.message()) ? "" : ": " + r.message())),
            () -> out.println("  attached: nothing refuses it"));
    a.recoverySpelling()
        .ifPresent(
            spelling ->
                out.println(
                    "  recovery: kvcache migrate --binding "
                        + a.namespace()
                        + "/"
                        + a.name()
                        + " --dtype "
                        + spelling
                        + " (the plan first; --apply carries it out)"));
  }

  private void flags(ArgvFlags flags) {
    if (flags.owned().isEmpty()) {
      out.println("  owned flags in " + flags.field() + ": none");
    }
    for (OwnedFlag flag : flags.owned()) {
      out.println(
          "  "
              + flag.path()
              + ": "
              + reading(flag)
              + (flag.dtype() && !flags.dtypeOwned()
                  ? " (its own: not owned here)"
                  : flag.dtype()
                      ? " (refused while the dtype is owned)"
                      : " (owned by the engine's connector)"));
    }
    for (KvFormatFlag flag : flags.kvFormat()) {
      out.println(
          "  "
              + flag.path()
              + ": "
              + flag.spelling()
              + " changes the KV representation ("
              + flag.effect()
              + ")");
    }
  }

  private static String reading(OwnedFlag flag) {
    return flag.reading() + flag.value().map(v -> " = " + quote(v, 64)).orElse("");
  }

  private void replica(Replica r) {
    out.println(
        "  Pod "
            + r.pod()
            + ": "
            + (r.ready() ? "Ready" : "not Ready")
            + "; its argv hands the engine "
            + r.argvDtype().map(d -> quote(d, 64)).orElse("no --kv-cache-dtype")
            + "; the engine reports "
            + r.observedDtype().map(d -> quote(d, 64)).orElse("nothing readable")
            + " ("
            + r.source()
            + "): "
            + r.verdict());
  }

  private void status(Status status) {
    out.println();
    out.println("status.phase: " + status.phase().orElse("(not reported yet)"));
    for (Condition c : status.conditions()) {
      out.println(
          "  "
              + c.type()
              + "="
              + c.status()
              + " "
              + c.reason().orElse("")
              + ": "
              + shown(c.message().orElse("")));
    }
  }

  /**
   * Text from a tenant's objects as a terminal may show it: control characters escaped, so an argv
   * cannot send the reader's terminal an escape sequence; cut at 4,096 characters.
   */
  private static String shown(String text) {
    return Quoting.printable(text, 4096);
  }
}
