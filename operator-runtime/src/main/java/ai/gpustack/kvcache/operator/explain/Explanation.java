package ai.gpustack.kvcache.operator.explain;

import ai.gpustack.kvcache.api.Condition;
import ai.gpustack.kvcache.api.EffectiveSettings;
import java.util.List;
import java.util.Optional;

/**
 * Why one object gets what it gets, as {@link Explainer} found it: plain values in the order a
 * person reads them, with the field paths they come from. Text from the objects is kept raw; the
 * printer quotes and escapes it. Immutable.
 */
public sealed interface Explanation {
  /** A ModelDeployment; {@code spec} is empty when it has none. */
  record Deployment(String namespace, String name, Optional<DeploymentSpec> spec)
      implements Explanation {}

  /**
   * What a ModelDeployment's spec leads to. {@code attachment} is empty when {@code spec.kvCache}
   * is absent ({@code kvCache} false) or the engine is not registered; {@code renderFailure} is why
   * it does not render.
   */
  record DeploymentSpec(
      EngineChoice engine,
      EffectiveSettings settings,
      boolean kvCache,
      Optional<AttachmentPath> attachment,
      Optional<String> renderFailure,
      List<RoleExplanation> roles,
      Status status) {
    public DeploymentSpec {
      roles = List.copyOf(roles);
    }
  }

  /**
   * One role: how its command is built, the owned flags in its own argv (empty when the engine is
   * not registered), its first rendered command or why the render is held, and its replicas.
   */
  record RoleExplanation(
      int index,
      String name,
      String kind,
      int replicas,
      boolean takeOver,
      Optional<ArgvFlags> flags,
      Optional<String> renders,
      Optional<String> held,
      List<Replica> pods) {
    public RoleExplanation {
      pods = List.copyOf(pods);
    }
  }

  /**
   * A Pod: a replica of a ModelDeployment ({@code managed}), or one opting into injection ({@code
   * injection}), or neither (not attached).
   */
  record Pod(
      String namespace, String name, Optional<ManagedPod> managed, Optional<Injection> injection)
      implements Explanation {}

  /**
   * A replica the operator built: its owner, role and ordinal; the main container's owned flags and
   * the engine's report, once its ModelDeployment (with a spec) is found.
   */
  record ManagedPod(
      String owner,
      String role,
      int ordinal,
      List<ContainerArgv> containers,
      Optional<Replica> replica) {
    public ManagedPod {
      containers = List.copyOf(containers);
    }
  }

  /** A Pod opting into injection: its annotations, engine, attachment and what was injected. */
  record Injection(
      List<Annotation> annotations,
      EngineChoice engine,
      EffectiveSettings settings,
      Optional<AttachmentPath> attachment,
      Optional<Injected> injected) {
    public Injection {
      annotations = List.copyOf(annotations);
    }
  }

  record Annotation(String key, String value) {}

  /** The webhook's record on the Pod, the target container's flags, and (Ready) its report. */
  record Injected(String record, List<ContainerArgv> containers, Optional<Replica> replica) {
    public Injected {
      containers = List.copyOf(containers);
    }
  }

  /** A KVCachePoolBinding; {@code spec} is empty when it has none. */
  record Binding(String namespace, String name, Optional<BindingSpec> spec)
      implements Explanation {}

  /**
   * What a Binding's spec leads to: its pool and backend, the other Bindings naming its domain on
   * that backend, what each engine makes of its dtype, who attaches, and its status ({@code usedBy}
   * empty when it has none).
   */
  record BindingSpec(
      Domain domain,
      String pool,
      boolean poolFound,
      Optional<String> backend,
      List<String> sharing,
      EffectiveSettings settings,
      List<EngineDtype> engines,
      List<AttachedDeployment> deployments,
      List<AttachedPod> pods,
      Optional<List<String>> usedBy,
      Status status) {
    public BindingSpec {
      sharing = List.copyOf(sharing);
      engines = List.copyOf(engines);
      deployments = List.copyOf(deployments);
      pods = List.copyOf(pods);
      usedBy = usedBy.map(List::copyOf);
    }
  }

  record Domain(String name, int blockSize, String dtype) {}

  /** One registered engine against a dtype, by its newest table. */
  record EngineDtype(String engine, boolean accepts, Optional<String> format) {}

  record AttachedDeployment(
      String name,
      String engine,
      Optional<String> version,
      Verdict verdict,
      Optional<String> phase) {}

  record AttachedPod(String name, String engine, Optional<String> version, Verdict verdict) {}

  /**
   * What a Binding is to one attached workload: its engine unregistered, refused for {@code
   * refusal}, or the dtype ruling's {@code outcome} and the format it stores.
   */
  record Verdict(
      boolean registered, Optional<String> refusal, String outcome, Optional<String> format) {}

  /**
   * The engine a workload names at {@code field}: its module and the spelling table {@code version}
   * selects, or (not registered) the ids that are.
   */
  record EngineChoice(
      String field,
      String name,
      Optional<String> version,
      Optional<EngineModule> module,
      List<String> registered) {
    public EngineChoice {
      registered = List.copyOf(registered);
    }
  }

  record EngineModule(String id, String artifact, String table) {}

  /**
   * The resolver's path from a Binding reference: Binding, pool and backend, store endpoint, the
   * dtype's ruling and format, warnings, the refusal and (a spelling rejected) the migration that
   * recovers.
   */
  record AttachmentPath(
      String field,
      String namespace,
      String name,
      Optional<Domain> domain,
      Optional<PoolPath> pool,
      Optional<Endpoint> endpoint,
      String outcome,
      String message,
      Optional<Format> format,
      List<String> warnings,
      Optional<Refused> refusal,
      Optional<String> recoverySpelling) {
    public AttachmentPath {
      warnings = List.copyOf(warnings);
    }
  }

  record PoolPath(String pool, Optional<String> backend) {}

  /** {@code fromBackend}: read from the backend's connection, else from the pool's status. */
  record Endpoint(String address, boolean fromBackend, Optional<String> tenant) {}

  record Format(String engine, String dtype, String format, String description) {}

  record Refused(String field, String reason, String message) {}

  /** The owned flags, and those changing the KV representation, in one argv. */
  record ArgvFlags(
      String field, boolean dtypeOwned, List<OwnedFlag> owned, List<KvFormatFlag> kvFormat) {
    public ArgvFlags {
      owned = List.copyOf(owned);
      kvFormat = List.copyOf(kvFormat);
    }
  }

  /** One owned flag at {@code path}: how the engine reads it, and whether it is the dtype flag. */
  record OwnedFlag(String path, String reading, Optional<String> value, boolean dtype) {}

  record KvFormatFlag(String path, String spelling, String effect) {}

  /** One container of a Pod: its argv (command then args) and the owned flags in it. */
  record ContainerArgv(int index, String name, String argv, List<OwnedFlag> owned) {
    public ContainerArgv {
      owned = List.copyOf(owned);
    }
  }

  /**
   * One replica: Ready or not, the dtype its argv hands the engine, and what the engine reports.
   */
  record Replica(
      String pod,
      boolean ready,
      Optional<String> argvDtype,
      Optional<String> observedDtype,
      String source,
      String verdict) {}

  record Status(Optional<String> phase, List<Condition> conditions) {
    public Status {
      conditions = List.copyOf(conditions);
    }
  }
}
