package ai.gpustack.kvcache.operator;

import static org.assertj.core.api.Assertions.assertThat;

import ai.gpustack.kvcache.admission.Admission;
import ai.gpustack.kvcache.admission.Decision;
import ai.gpustack.kvcache.admission.Request;
import ai.gpustack.kvcache.admission.Route;
import ai.gpustack.kvcache.api.Condition;
import ai.gpustack.kvcache.api.Problem;
import ai.gpustack.kvcache.api.Settings;
import ai.gpustack.kvcache.api.SpellingCheck;
import ai.gpustack.kvcache.cluster.MemoryClusterView;
import ai.gpustack.kvcache.operator.render.PodRenderer;
import ai.gpustack.kvcache.operator.render.RenderException;
import ai.gpustack.kvcache.operator.render.Rendering;
import ai.gpustack.kvcache.operator.status.DeploymentConditions;
import ai.gpustack.kvcache.resources.Keys;
import ai.gpustack.kvcache.resources.KvCacheSerialization;
import ai.gpustack.kvcache.resources.ModelDeployment;
import ai.gpustack.kvcache.spi.Engine;
import ai.gpustack.kvcache.spi.EngineRegistry;
import ai.gpustack.kvcache.spi.FlagReader;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.fabric8.kubernetes.api.model.Container;
import io.fabric8.kubernetes.api.model.HasMetadata;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.client.utils.KubernetesSerialization;
import io.fabric8.zjsonpatch.JsonPatch;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;
import org.junit.jupiter.api.Test;

/**
 * The operator's road and the webhook's road agree on every generated cluster state. The operator's
 * road is a pool-attached ModelDeployment: its admission on create, then the render of its managed
 * role; the webhook's road is a Pod of the same engine and version opting into injection through
 * the same Binding. For each state both end either with the same refusal reasons (conditions and
 * admission problems on one side, the denial's problems on the other), or with an engine that reads
 * the same dtype, the same connector flags and the same store client configuration (endpoint and
 * tenant) off the argv, env and config annotation, with the same warnings.
 */
class AttachmentAgreementTest {
  private static final ObjectMapper JSON = new ObjectMapper();
  private static final KubernetesSerialization SERIALIZATION = KvCacheSerialization.create();
  private static final EngineRegistry ENGINES = EngineRegistry.load();
  private static final PodRenderer RENDERER = new PodRenderer(ENGINES);
  private static final String NAMESPACE = "team-a";
  private static final String BACKEND_ENDPOINT = "backend-master.kv.svc:50051";
  private static final String POOL_ENDPOINT = "pool-master.kv.svc:50051";

  enum BindingState {
    PRESENT,
    ABSENT,
    TERMINATING
  }

  /**
   * What attached to the domain before: vLLM 0.4.2, whose fp8 is FP8 E5M2 where later ones' is
   * E4M3.
   */
  enum Earlier {
    NONE,
    DEPLOYMENT,
    INJECTED_POD
  }

  enum Endpoint {
    ON_BACKEND,
    ON_POOL,
    DIFFERENT_ON_BOTH,
    NONE
  }

  /** One generated cluster state and the workload attaching through it. */
  record State(
      BindingState binding,
      String dtype,
      boolean pool,
      boolean backend,
      Endpoint endpoint,
      boolean multiTenancy,
      boolean owned,
      SpellingCheck check,
      String engine,
      Optional<String> version,
      boolean ownFlag,
      Earlier earlier) {}

  /**
   * What one road ends with: refusal reasons, or what the engine reads off what it is given; and
   * the wording of its admission refusals by reason, with the road's subject, field paths and
   * take-over clause cut out.
   */
  record Outcome(
      Set<String> refusals,
      Map<String, Optional<String>> reads,
      List<String> warnings,
      Map<String, Set<String>> words) {
    static Outcome refused(Set<String> reasons, Decision admission) {
      return new Outcome(new TreeSet<>(reasons), Map.of(), List.of(), words(admission));
    }

    Outcome unworded() {
      return new Outcome(refusals, reads, warnings, Map.of());
    }

    /** Where both roads refuse for one reason, whether they word it differently. */
    boolean wordedApart(Outcome other) {
      return words.keySet().stream()
          .filter(other.words::containsKey)
          .anyMatch(r -> !words.get(r).equals(other.words.get(r)));
    }

    private static Map<String, Set<String>> words(Decision admission) {
      Map<String, Set<String>> words = new TreeMap<>();
      for (Problem p : admission.problems()) {
        p.reason()
            .ifPresent(
                r ->
                    words
                        .computeIfAbsent(r, k -> new TreeSet<>())
                        .add(
                            p.detail()
                                .replace("role \"server\"", "<subject>")
                                .replace("container \"main\"", "<subject>")
                                .replace(
                                    ", or set roles[].command to own the role's whole argv", "")));
      }
      return words;
    }
  }

  @Test
  void the_operator_and_the_webhook_attach_alike_in_every_generated_state() {
    List<State> states = states();
    assertThat(states).hasSizeGreaterThanOrEqualTo(2_000);
    int refused = 0;
    int attached = 0;
    int worded = 0;
    List<String> disagreements = new ArrayList<>();
    // States differing only in the workload share a cluster.
    Map<List<Object>, MemoryClusterView> clusters = new java.util.HashMap<>();
    Map<MemoryClusterView, Admission> admissions = new java.util.IdentityHashMap<>();
    for (State state : states) {
      MemoryClusterView cluster =
          clusters.computeIfAbsent(clusterKey(state), k -> MemoryClusterView.of(objects(state)));
      Admission admission = admissions.computeIfAbsent(cluster, c -> new Admission(ENGINES, c));
      Outcome operator = operatorRoad(state, admission, cluster);
      Outcome webhook = webhookRoad(state, admission);
      if (operator.words().keySet().stream().anyMatch(webhook.words()::containsKey)) {
        worded++;
      }
      if (!operator.unworded().equals(webhook.unworded()) || operator.wordedApart(webhook)) {
        disagreements.add(state + "\n  operator: " + operator + "\n  webhook:  " + webhook);
      } else if (operator.refusals().isEmpty()) {
        attached++;
      } else {
        refused++;
      }
    }
    System.out.printf(
        "attachment agreement: %d states, %d attached, %d refused (%d worded alike on both roads),"
            + " %d disagreements%n",
        states.size(), attached, refused, worded, disagreements.size());
    assertThat(disagreements).as("states where the roads disagree").isEmpty();
    // Both kinds of outcome are exercised in quantity, so agreement is not agreement on nothing.
    assertThat(attached).isGreaterThan(states.size() / 10);
    assertThat(refused).isGreaterThan(states.size() / 10);
    assertThat(worded).isGreaterThan(states.size() / 10);
  }

  /**
   * Every combination of the dimensions, with those that cannot matter (everything past a missing
   * Binding, the backend past a missing pool) held at one value, so each state is distinct.
   */
  static List<State> states() {
    Set<State> out = new java.util.LinkedHashSet<>();
    for (BindingState binding : BindingState.values()) {
      // both accept; vLLM rejects; SGLang rejects; stored auto; unreadable
      for (String dtype : List.of("bfloat16", "bf16", "fp8", "auto", "BF16")) {
        for (Earlier earlier : Earlier.values()) {
          if (earlier != Earlier.NONE
              && (binding != BindingState.PRESENT || !dtype.equals("fp8"))) {
            continue;
          }
          for (boolean pool : List.of(true, false)) {
            for (boolean backend : List.of(true, false)) {
              for (Endpoint endpoint : Endpoint.values()) {
                for (boolean tenancy : List.of(true, false)) {
                  for (boolean owned : List.of(true, false)) {
                    for (SpellingCheck check : SpellingCheck.values()) {
                      for (String engine : List.of("vLLM", "SGLang", "TGI")) {
                        for (Optional<String> version : versions(engine)) {
                          for (boolean ownFlag : List.of(true, false)) {
                            boolean noBinding = binding == BindingState.ABSENT;
                            boolean noPool = noBinding || !pool;
                            out.add(
                                new State(
                                    binding,
                                    noBinding ? "bfloat16" : dtype,
                                    !noBinding && pool,
                                    !noPool && backend,
                                    noPool ? Endpoint.NONE : endpoint,
                                    !noPool && backend && tenancy,
                                    owned,
                                    check,
                                    engine,
                                    version,
                                    ownFlag,
                                    earlier));
                          }
                        }
                      }
                    }
                  }
                }
              }
            }
          }
        }
      }
    }
    return List.copyOf(out);
  }

  private static List<Object> clusterKey(State s) {
    return List.of(
        s.binding(),
        s.dtype(),
        s.pool(),
        s.backend(),
        s.endpoint(),
        s.multiTenancy(),
        s.owned(),
        s.check(),
        s.earlier());
  }

  /** No version, the oldest table's first version, and one before every table. */
  private static List<Optional<String>> versions(String engine) {
    return ENGINES
        .find(engine)
        .map(
            e ->
                List.of(
                    Optional.<String>empty(),
                    e.dtypeSpellings().entries().get(0).versions().from().map(Object::toString),
                    Optional.of("0.0.1")))
        .orElse(List.of(Optional.of("1.0.0")));
  }

  private static List<HasMetadata> objects(State s) {
    List<String> json = new ArrayList<>();
    String backendEndpoint =
        s.endpoint() == Endpoint.ON_BACKEND || s.endpoint() == Endpoint.DIFFERENT_ON_BOTH
            ? "{\"external\": {\"clientEndpoint\": \"" + BACKEND_ENDPOINT + "\"}}"
            : "{}";
    if (s.backend()) {
      json.add(
          """
          {"apiVersion": "worker.gpustack.ai/v1", "kind": "KVCacheBackend",
           "metadata": {"name": "mooncake"},
           "spec": {"connection": %s, "multiTenancy": %s}}
          """
              .formatted(backendEndpoint, s.multiTenancy()));
    }
    if (s.pool()) {
      String status =
          s.endpoint() == Endpoint.ON_POOL || s.endpoint() == Endpoint.DIFFERENT_ON_BOTH
              ? "{\"clientEndpoint\": \"" + POOL_ENDPOINT + "\"}"
              : "{}";
      json.add(
          """
          {"apiVersion": "worker.gpustack.ai/v1", "kind": "KVCachePool",
           "metadata": {"name": "shared"},
           "spec": {"backends": ["mooncake"], "quota": {"total": "4Ti"}}, "status": %s}
          """
              .formatted(status));
    }
    if (s.binding() != BindingState.ABSENT) {
      String deleting =
          s.binding() == BindingState.TERMINATING
              ? ", \"deletionTimestamp\": \"2026-12-01T00:00:00Z\", \"finalizers\": [\"f\"]"
              : "";
      json.add(
          """
          {"apiVersion": "worker.gpustack.ai/v1", "kind": "KVCachePoolBinding",
           "metadata": {"name": "chat", "namespace": "%s"%s},
           "spec": {"poolRef": {"name": "shared"}, "quota": {"ceiling": "1Ti"},
                    "domain": {"name": "chat", "blockSize": 16, "dtype": "%s"}}}
          """
              .formatted(NAMESPACE, deleting, s.dtype()));
    }
    if (s.earlier() == Earlier.DEPLOYMENT) {
      json.add(
          """
          {"apiVersion": "worker.gpustack.ai/v1", "kind": "ModelDeployment",
           "metadata": {"name": "first", "namespace": "%s",
                        "creationTimestamp": "2026-01-01T00:00:00Z"},
           "spec": {"model": {"name": "org/model"}, "engine": {"name": "vLLM", "version": "0.4.2"},
                    "kvCache": {"poolRef": {"name": "chat"}}, "roles": [{"name": "server"}]}}
          """
              .formatted(NAMESPACE));
    }
    if (s.earlier() == Earlier.INJECTED_POD) {
      json.add(
          """
          {"apiVersion": "v1", "kind": "Pod",
           "metadata": {"name": "first", "namespace": "%s",
                        "creationTimestamp": "2026-01-01T00:00:00Z",
                        "labels": {"kvcache.gpustack.ai/inject": "true"},
                        "annotations": {"kvcache.gpustack.ai/binding": "chat",
                                        "kvcache.gpustack.ai/engine": "vLLM",
                                        "kvcache.gpustack.ai/engine-version": "0.4.2",
                                        "kvcache.gpustack.ai/injected": "{}"}},
           "spec": {"containers": [{"name": "main", "image": "vllm"}]}}
          """
              .formatted(NAMESPACE));
    }
    json.add(setting(Settings.KV_CACHE_DTYPE_OWNED.name(), String.valueOf(s.owned())));
    json.add(setting(Settings.KV_CACHE_DTYPE_SPELLING_CHECK.name(), s.check().name()));
    List<HasMetadata> objects = new ArrayList<>();
    json.forEach(j -> objects.add(SERIALIZATION.unmarshal(j)));
    return objects;
  }

  private static String setting(String name, String value) {
    return """
        {"apiVersion": "gpustack.ai/v1", "kind": "Setting",
         "metadata": {"name": "%s", "namespace": "gpustack-system"}, "spec": {"value": "%s"}}
        """
        .formatted(name, value);
  }

  /** The role's or the container's own dtype flag, when the state has one. */
  private static List<String> own(State s) {
    return s.ownFlag() ? List.of("--kv-cache-dtype", "fp8_e5m2") : List.of();
  }

  private static Outcome operatorRoad(State s, Admission admission, MemoryClusterView cluster) {
    ObjectNode md = JSON.createObjectNode();
    md.put("apiVersion", "worker.gpustack.ai/v1").put("kind", "ModelDeployment");
    md.putObject("metadata")
        .put("name", "chat")
        .put("namespace", NAMESPACE)
        .put("uid", "u1")
        .put("creationTimestamp", "2026-06-01T00:00:00Z");
    ObjectNode spec = md.putObject("spec");
    spec.putObject("model").put("name", "org/model");
    ObjectNode engine = spec.putObject("engine").put("name", s.engine());
    s.version().ifPresent(v -> engine.put("version", v));
    spec.putObject("kvCache").putObject("poolRef").put("name", "chat");
    ObjectNode role = spec.putArray("roles").addObject().put("name", "server");
    role.put("image", "engine:latest");
    ArrayNode extra = role.putArray("extraArgs");
    own(s).forEach(extra::add);

    Decision create =
        admission.decide(
            Route.MODEL_DEPLOYMENT,
            new Request("agree", "ModelDeployment", "CREATE", NAMESPACE, "chat", md, null));
    Set<String> reasons = new TreeSet<>(create.reasons());
    Rendering rendering;
    try {
      rendering = RENDERER.render(SERIALIZATION.convertValue(md, ModelDeployment.class), cluster);
    } catch (RenderException e) {
      assertThat(reasons).as("a deployment that cannot render is refused at create").isNotEmpty();
      return Outcome.refused(reasons, create);
    }
    for (Condition c : DeploymentConditions.of(rendering, cluster.settings().kvCacheDtypeOwned())) {
      boolean refusal =
          !c.isTrue()
              && !Set.of("SpellingUnverified", "FormatUnverified").contains(c.reason().orElse(""))
              && !c.type().equals(DeploymentConditions.DOMAIN_REGISTERED);
      if (refusal) {
        reasons.add(c.reason().orElseThrow());
        // A refused dtype holds the rollout: replicas keep their last good render.
        if (c.type().equals(DeploymentConditions.DTYPE_ACCEPTED) && !rendering.isHeld()) {
          reasons.add("RolledDespite" + c.reason().orElseThrow());
        }
      }
    }
    if (!reasons.isEmpty()) {
      return Outcome.refused(reasons, create);
    }
    Container main = rendering.roles().get(0).pods().get(0).getSpec().getContainers().get(0);
    return new Outcome(
        Set.of(),
        reads(
            s,
            main.getCommand(),
            env(main),
            rendering.roles().get(0).pods().get(0).getMetadata().getAnnotations()),
        create.warnings(),
        Map.of());
  }

  private static Outcome webhookRoad(State s, Admission admission) {
    ObjectNode pod = JSON.createObjectNode();
    pod.put("apiVersion", "v1").put("kind", "Pod");
    ObjectNode meta = pod.putObject("metadata").put("name", "p").put("namespace", NAMESPACE);
    meta.putObject("labels").put(Keys.INJECT, "true");
    ObjectNode annotations =
        meta.putObject("annotations").put(Keys.BINDING, "chat").put(Keys.ENGINE, s.engine());
    s.version().ifPresent(v -> annotations.put(Keys.ENGINE_VERSION, v));
    ObjectNode container = pod.putObject("spec").putArray("containers").addObject();
    container.put("name", "main").put("image", "engine:latest");
    ArrayNode command = container.putArray("command");
    ArrayNode args = container.putArray("args");
    Optional<Engine> engine = ENGINES.find(s.engine());
    engine.ifPresent(e -> e.baseArgv("org/model").forEach(command::add));
    own(s).forEach(args::add);

    Decision d =
        admission.decide(
            Route.POD_INJECTION, new Request("agree", "Pod", "CREATE", NAMESPACE, "", pod, null));
    if (!d.allowed()) {
      return Outcome.refused(new TreeSet<>(d.reasons()), d);
    }
    JsonNode patched =
        d.patch().isPresent() ? JsonPatch.apply(d.patch().get().operations(), pod) : pod;
    Pod out = SERIALIZATION.convertValue(patched, Pod.class);
    Container main = out.getSpec().getContainers().get(0);
    List<String> argv = new ArrayList<>(main.getCommand());
    argv.addAll(main.getArgs() == null ? List.of() : main.getArgs());
    return new Outcome(
        Set.of(),
        reads(s, argv, env(main), out.getMetadata().getAnnotations()),
        d.warnings(),
        Map.of());
  }

  /**
   * What the engine reads: the dtype and every connector flag as its parser takes them, its env,
   * and the store client's configuration file.
   */
  private static Map<String, Optional<String>> reads(
      State s, List<String> argv, Map<String, String> env, Map<String, String> annotations) {
    Engine engine = ENGINES.resolve(s.engine());
    FlagReader reader = engine.flagReader(s.version());
    Map<String, Optional<String>> reads = new TreeMap<>();
    reads.put(engine.dtypeFlag(), reader.lastValue(argv, engine.dtypeFlag()));
    for (String flag : engine.ownedFlags()) {
      reads.put(flag, reader.lastValue(argv, flag));
    }
    env.forEach((k, v) -> reads.put("env " + k, Optional.of(v)));
    reads.put(
        "client config",
        Optional.ofNullable(annotations == null ? null : annotations.get(Keys.CLIENT_CONFIG)));
    return reads;
  }

  private static Map<String, String> env(Container c) {
    Map<String, String> env = new LinkedHashMap<>();
    if (c.getEnv() != null) {
      c.getEnv().forEach(e -> env.put(e.getName(), e.getValue()));
    }
    return env;
  }
}
