package ai.gpustack.kvcache.operator.preflight;

import static ai.gpustack.kvcache.api.Quoting.quote;

import ai.gpustack.kvcache.admission.Admission;
import ai.gpustack.kvcache.admission.Decision;
import ai.gpustack.kvcache.admission.Request;
import ai.gpustack.kvcache.admission.Route;
import ai.gpustack.kvcache.api.EffectiveSettings;
import ai.gpustack.kvcache.api.EnvVar;
import ai.gpustack.kvcache.api.KvFormat;
import ai.gpustack.kvcache.api.Role;
import ai.gpustack.kvcache.api.Settings;
import ai.gpustack.kvcache.attach.Attachment;
import ai.gpustack.kvcache.attach.OwnedFlags;
import ai.gpustack.kvcache.attach.Refusal;
import ai.gpustack.kvcache.cluster.MemoryClusterView;
import ai.gpustack.kvcache.operator.preflight.Report.BindingCheck;
import ai.gpustack.kvcache.operator.preflight.Report.EngineUse;
import ai.gpustack.kvcache.operator.preflight.Report.Rollout;
import ai.gpustack.kvcache.operator.render.PodRenderer;
import ai.gpustack.kvcache.operator.render.RenderException;
import ai.gpustack.kvcache.operator.render.Rendering;
import ai.gpustack.kvcache.resources.KVCachePoolBinding;
import ai.gpustack.kvcache.resources.Keys;
import ai.gpustack.kvcache.resources.KvCacheSerialization;
import ai.gpustack.kvcache.resources.ModelDeployment;
import ai.gpustack.kvcache.resources.Pods;
import ai.gpustack.kvcache.spi.DtypeVerdict;
import ai.gpustack.kvcache.spi.Engine;
import ai.gpustack.kvcache.spi.EngineRegistry;
import ai.gpustack.kvcache.spi.FlagOccurrence;
import com.fasterxml.jackson.databind.JsonNode;
import io.fabric8.kubernetes.api.model.HasMetadata;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.client.utils.KubernetesSerialization;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.SortedSet;
import java.util.TreeMap;
import java.util.TreeSet;
import java.util.stream.Stream;

/**
 * The upgrade guide's checks over an {@link Inventory}. Admission verdicts come from the same
 * handlers the webhook runs, with the dtype ownership on (the state the upgrade enforces), so a
 * finding quotes what the cluster will answer; rollouts are computed by the operator's own renderer
 * against the replicas' pod-spec hashes.
 */
public final class Preflight {
  private final EngineRegistry engines;
  private final PodRenderer renderer;
  private final KubernetesSerialization json = KvCacheSerialization.create();

  public Preflight(EngineRegistry engines) {
    this.engines = engines;
    this.renderer = new PodRenderer(engines);
  }

  public Report run(Inventory inventory) {
    List<HasMetadata> objects = inventory.objects();
    MemoryClusterView current = MemoryClusterView.of(objects);
    EffectiveSettings now = current.settings();
    String owned = Settings.KV_CACHE_DTYPE_OWNED.name();
    MemoryClusterView enforced = current.withSetting(owned, "true");
    MemoryClusterView flipped =
        current.withSetting(owned, String.valueOf(!now.kvCacheDtypeOwned()));
    Admission admission = new Admission(engines, enforced);
    List<Finding> findings = new ArrayList<>();
    if (!now.kvCacheDtypeOwned()) {
      findings.add(
          Finding.warning(
              "setting-off",
              "Setting " + Settings.NAMESPACE + "/" + Settings.KV_CACHE_DTYPE_OWNED.name(),
              "is off: nothing is rendered or refused now; the findings below apply once it is"
                  + " turned on"));
    }
    List<PodTemplateOwner> workloads = inventory.workloads();
    List<ModelDeployment> deployments =
        inventory.all(ModelDeployment.class).stream()
            .filter(md -> md.getSpec() != null)
            .sorted(Comparator.comparing(Preflight::display))
            .toList();
    List<BindingCheck> bindings = bindings(inventory, deployments, workloads, findings);
    for (ModelDeployment md : deployments) {
      deployment(md, admission, findings);
    }
    for (PodTemplateOwner w : workloads) {
      if (w.optsIn() && !w.injected()) {
        workload(w, admission, findings);
      }
    }
    List<Rollout> rollouts = new ArrayList<>();
    for (ModelDeployment md : deployments) {
      rollouts.add(rollout(md, inventory, current, flipped, findings));
    }
    Map<String, String> settings = new LinkedHashMap<>();
    settings.put(Settings.KV_CACHE_DTYPE_OWNED.name(), String.valueOf(now.kvCacheDtypeOwned()));
    settings.put(Settings.KV_CACHE_DTYPE_SPELLING_CHECK.name(), now.spellingCheck().name());
    return new Report(inventory.source(), settings, bindings, findings, rollouts);
  }

  private record User(String display, String engine, Optional<String> version) {}

  private List<BindingCheck> bindings(
      Inventory inventory,
      List<ModelDeployment> deployments,
      List<PodTemplateOwner> workloads,
      List<Finding> findings) {
    Map<String, List<User>> users = new TreeMap<>();
    for (ModelDeployment md : deployments) {
      md.getSpec()
          .kvCache()
          .ifPresent(
              k ->
                  users
                      .computeIfAbsent(
                          Inventory.namespace(md) + "/" + k.poolRef().name(),
                          x -> new ArrayList<>())
                      .add(
                          new User(
                              display(md),
                              md.getSpec().engine().name(),
                              md.getSpec().engine().version())));
    }
    for (PodTemplateOwner w : workloads) {
      if (w.optsIn() && w.annotation(Keys.BINDING).isPresent()) {
        users
            .computeIfAbsent(
                w.namespace() + "/" + w.annotation(Keys.BINDING).get(), x -> new ArrayList<>())
            .add(
                new User(
                    w.display(),
                    w.annotation(Keys.ENGINE).orElse(""),
                    w.annotation(Keys.ENGINE_VERSION)));
      }
    }
    List<BindingCheck> checks = new ArrayList<>();
    List<KVCachePoolBinding> stored =
        inventory.all(KVCachePoolBinding.class).stream()
            .filter(b -> b.getSpec() != null)
            .sorted(Comparator.comparing(Preflight::display))
            .toList();
    for (KVCachePoolBinding b : stored) {
      String key = Inventory.namespace(b) + "/" + b.getMetadata().getName();
      String dtype = b.getSpec().domain().dtype();
      String subject = "KVCachePoolBinding " + key;
      if ("auto".equals(dtype)) {
        findings.add(
            Finding.warning(
                "auto-binding",
                subject,
                "stores dtype \"auto\": it keeps working and stays updatable, but each engine"
                    + " resolves auto from the model it loads, so engines sharing this domain may"
                    + " write different types; a new Binding may not declare auto"));
      }
      checks.add(check(b, dtype, users.getOrDefault(key, List.of()), findings));
      users.remove(key);
    }
    return checks;
  }

  private BindingCheck check(
      KVCachePoolBinding b, String dtype, List<User> users, List<Finding> findings) {
    String subject = display(b);
    Map<String, List<User>> byEngine = new TreeMap<>(String.CASE_INSENSITIVE_ORDER);
    for (User u : users) {
      byEngine
          .computeIfAbsent(u.engine() + "\u0000" + u.version().orElse(""), x -> new ArrayList<>())
          .add(u);
    }
    List<EngineUse> uses = new ArrayList<>();
    SortedSet<String> common = null;
    for (List<User> group : byEngine.values()) {
      User first = group.get(0);
      List<String> names = group.stream().map(User::display).toList();
      Optional<Engine> engine = engines.find(first.engine());
      if (engine.isEmpty()) {
        uses.add(unregistered(first, names, subject, findings));
        continue;
      }
      DtypeVerdict verdict = engine.get().checkDtype(dtype, first.version());
      uses.add(
          new EngineUse(
              engine.get().displayName(),
              first.version().orElse(""),
              verdict.accepted(),
              engine.get().kvFormat(dtype, first.version()).map(KvFormat::id).orElse("-"),
              List.copyOf(verdict.spellings()),
              names));
      common = common == null ? new TreeSet<>(verdict.spellings()) : common;
      common.retainAll(verdict.spellings());
      if (!verdict.accepted()) {
        findings.add(dtypeRejected(subject, engine.get(), first.version(), dtype, names, verdict));
      }
    }
    return new BindingCheck(
        Inventory.namespace(b),
        b.getMetadata().getName(),
        dtype,
        uses,
        common == null ? List.of() : List.copyOf(common));
  }

  /** Workloads naming no engine, or one not registered: nothing can be checked for them. */
  private EngineUse unregistered(
      User first, List<String> names, String subject, List<Finding> findings) {
    findings.add(
        Finding.breaks(
            "engine-not-registered",
            subject,
            (first.engine().isEmpty()
                    ? "is named by workloads that name no engine"
                    : "is named by workloads whose engine is not registered")
                + ": "
                + String.join(", ", names),
            first.engine().isEmpty()
                ? "set the kvcache.gpustack.ai/engine annotation"
                : engines.unknown(first.engine())));
    return new EngineUse(
        first.engine().isEmpty() ? "(none)" : first.engine(),
        first.version().orElse(""),
        false,
        "-",
        List.of(),
        names);
  }

  private static Finding dtypeRejected(
      String subject,
      Engine engine,
      Optional<String> version,
      String dtype,
      List<String> names,
      DtypeVerdict verdict) {
    return Finding.breaks(
        "dtype-rejected",
        subject,
        engine.displayName()
            + version.map(v -> " " + v).orElse("")
            + " rejects dtype "
            + quote(dtype)
            + ", so its new Pods would fail argument parsing: the operator holds such a"
            + " deployment on its last good render (DtypeAccepted=False), and the webhook"
            + " refuses such a Pod; used by "
            + String.join(", ", names),
        engine.displayName()
            + " accepts "
            + String.join(", ", verdict.spellings())
            + " (spelling table "
            + verdict.table()
            + "); recover as the upgrade guide's 'If new Pods fail argument parsing'"
            + " says");
  }

  private void deployment(ModelDeployment md, Admission admission, List<Finding> findings) {
    JsonNode object = json.convertValue(md, JsonNode.class);
    Decision update =
        admission.decide(
            Route.MODEL_DEPLOYMENT,
            new Request(
                "preflight",
                "ModelDeployment",
                "UPDATE",
                Inventory.namespace(md),
                md.getMetadata().getName(),
                object,
                object));
    String verdict = update.allowed() ? "" : update.message();
    boolean reported = false;
    Optional<Engine> engine = engines.find(md.getSpec().engine().name());
    if (md.getSpec().kvCache().isPresent() && engine.isPresent()) {
      List<Role> roles = md.getSpec().roles();
      for (int i = 0; i < roles.size(); i++) {
        if (roles.get(i).command().isEmpty()) {
          reported |= roleFlagFindings(md, engine.get(), i, verdict, findings);
        }
      }
    }
    if (!update.allowed() && !reported) {
      findings.add(
          Finding.breaks(
              "update-refused",
              display(md),
              "its next update is refused: fix the deployment before its owners edit it",
              verdict));
    }
  }

  /** Adds the findings on role {@code i}'s flags; whether it passes the dtype flag itself. */
  private boolean roleFlagFindings(
      ModelDeployment md, Engine engine, int i, String verdict, List<Finding> findings) {
    Role role = md.getSpec().roles().get(i);
    OwnedFlags.Verdict owned =
        OwnedFlags.check(
            engine,
            md.getSpec().engine().version(),
            OwnedFlags.Subject.role(
                role.name(),
                "spec.roles[" + i + "]",
                role.extraArgs(),
                role.env().stream().map(EnvVar::name).toList()),
            true,
            "KVCachePoolBinding " + quote(md.getSpec().kvCache().get().poolRef().name()));
    owned
        .warnings()
        .forEach(m -> findings.add(Finding.warning("role-changes-kv-format", display(md), m)));
    for (OwnedFlags.Hit hit : owned.dtypeHits()) {
      FlagOccurrence occurrence = hit.occurrence();
      findings.add(
          Finding.breaks(
              "role-passes-flag",
              display(md),
              "role "
                  + quote(role.name())
                  + " passes "
                  + occurrence.describe(engine.id())
                  + " at "
                  + hit.field()
                  + ": "
                  + (occurrence.ambiguous()
                      ? "its replicas cannot start as written"
                      : "it keeps its own value"
                          + occurrence.value().map(v -> " " + quote(v)).orElse("")
                          + ", which comes later on the command line than the Binding's")
                  + ", and its next update is refused until the entry is removed",
              verdict));
    }
    return !owned.dtypeHits().isEmpty();
  }

  private void workload(PodTemplateOwner w, Admission admission, List<Finding> findings) {
    JsonNode pod = json.convertValue(w.pod(), JsonNode.class);
    Decision decision =
        admission.decide(
            Route.POD_INJECTION,
            new Request("preflight", "Pod", "CREATE", w.namespace(), "", pod, null));
    boolean bare = w.kind().equals("Pod");
    if (!decision.allowed()) {
      boolean passes = decision.reasons().contains(OwnedFlags.DTYPE_FLAG_OWNED);
      String consequence =
          bare
              ? "the webhook refuses it when it is recreated"
              : "the webhook refuses its Pods, so it reports FailedCreate until this is fixed";
      findings.add(
          Finding.breaks(
              passes ? "template-passes-flag" : "injection-refused",
              w.display(),
              passes
                  ? "opts into injection and its container passes --kv-cache-dtype itself: "
                      + consequence
                      + " (remove the flag; the webhook appends the Binding's)"
                  : "opts into injection and " + consequence,
              decision.message()));
    } else {
      decision
          .warnings()
          .forEach(m -> findings.add(Finding.warning("injection-warning", w.display(), m)));
    }
    if (bare && w.live()) {
      findings.add(
          Finding.warning(
              "not-injected",
              w.display(),
              "carries "
                  + Keys.INJECT
                  + " but no injection record: it was created while the webhook was down or"
                  + " unregistered and runs without the Binding's dtype; delete it so its owner"
                  + " recreates it through the webhook"));
    }
  }

  /**
   * How many of {@code md}'s running replicas roll when rendered against {@code current} (an
   * upgrade) and against {@code flipped} (the ownership Setting turned over).
   */
  private Rollout rollout(
      ModelDeployment md,
      Inventory inventory,
      MemoryClusterView current,
      MemoryClusterView flipped,
      List<Finding> findings) {
    List<Pod> running = inventory.replicas(md);
    int replicas = md.getSpec().roles().stream().mapToInt(r -> r.replicas()).sum();
    String ns = Inventory.namespace(md);
    String name = md.getMetadata().getName();
    Rendering upgrade;
    Rendering afterFlip;
    try {
      upgrade = renderer.render(md, current);
      afterFlip = renderer.render(md, flipped);
      renderFindings(md, upgrade, afterFlip, findings);
    } catch (RenderException e) {
      findings.add(
          Finding.breaks(
              "render-failed",
              display(md),
              "does not render, so the operator creates and replaces none of its replicas",
              e.getMessage()));
      return new Rollout(ns, name, replicas, running.size(), 0, 0, "does not render");
    }
    if (running.isEmpty()) {
      return new Rollout(ns, name, replicas, 0, 0, 0, "no replicas in the input");
    }
    List<String> notes = new ArrayList<>();
    upgrade.held().ifPresent(h -> notes.add("held now: " + why(h)));
    afterFlip.held().ifPresent(h -> notes.add("held after a flip: " + why(h)));
    return new Rollout(
        ns,
        name,
        replicas,
        running.size(),
        upgrade.isHeld() ? 0 : outdated(running, upgrade),
        afterFlip.isHeld() ? 0 : outdated(running, afterFlip),
        String.join("; ", notes));
  }

  /** What the renders say breaks: a Binding not found, or a KV format the domain does not use. */
  private static void renderFindings(
      ModelDeployment md, Rendering upgrade, Rendering afterFlip, List<Finding> findings) {
    upgrade
        .attachment()
        .flatMap(Attachment::refusal)
        .filter(r -> r.reason().equals(Refusal.BINDING_NOT_FOUND))
        .ifPresent(
            r ->
                findings.add(
                    Finding.breaks(
                        "binding-missing",
                        display(md),
                        r.message()
                            + ": its replicas get no cache connector and no dtype"
                            + " (CacheAttached=False) until it is created",
                        "")));
    Stream.of(upgrade, afterFlip)
        .map(Rendering::attachment)
        .flatMap(Optional::stream)
        .map(Attachment::refusal)
        .flatMap(Optional::stream)
        .filter(r -> r.reason().equals(Refusal.FORMAT_DIFFERS))
        .findFirst()
        .ifPresent(
            r ->
                findings.add(
                    Finding.breaks(
                        "format-differs",
                        display(md),
                        "is held on its last good render (DtypeAccepted=False,"
                            + " FormatDiffersInDomain): its engine stores the Binding's dtype in"
                            + " another KV format than the domain's earliest attachment",
                        r.message())));
  }

  private static String why(Refusal held) {
    return switch (held.reason()) {
      case Refusal.FORMAT_DIFFERS -> "its engine stores another KV format than the domain's";
      case Refusal.DTYPE_UNREADABLE -> "the Binding's stored dtype does not read";
      default -> "the engine rejects the Binding's dtype";
    };
  }

  /** The running replicas whose pod-spec hash differs from the render of their ordinal. */
  private static int outdated(List<Pod> running, Rendering rendering) {
    Map<String, String> desired = new TreeMap<>();
    for (Rendering.RolePlan role : rendering.roles()) {
      for (Pod pod : role.pods()) {
        desired.put(slot(pod), hash(pod));
      }
    }
    return (int)
        running.stream()
            .filter(p -> desired.containsKey(slot(p)))
            .filter(p -> !Objects.equals(desired.get(slot(p)), hash(p)))
            .count();
  }

  private static String slot(Pod pod) {
    return Pods.role(pod) + "/" + Pods.ordinal(pod);
  }

  private static String hash(Pod pod) {
    return Pods.hash(pod).orElse("");
  }

  private static String display(HasMetadata o) {
    return o.getKind() + " " + Inventory.namespace(o) + "/" + o.getMetadata().getName();
  }
}
