package ai.gpustack.kvcache.admission;

import static ai.gpustack.kvcache.api.Quoting.quote;

import ai.gpustack.kvcache.api.EffectiveSettings;
import ai.gpustack.kvcache.api.EnvVar;
import ai.gpustack.kvcache.api.Message;
import ai.gpustack.kvcache.api.Problems;
import ai.gpustack.kvcache.api.RoleKind;
import ai.gpustack.kvcache.attach.Attachment;
import ai.gpustack.kvcache.attach.AttachmentResolver;
import ai.gpustack.kvcache.attach.BindingRef;
import ai.gpustack.kvcache.attach.ConfigVolume;
import ai.gpustack.kvcache.attach.Refusal;
import ai.gpustack.kvcache.attach.Workload;
import ai.gpustack.kvcache.cluster.ClusterView;
import ai.gpustack.kvcache.resources.Keys;
import ai.gpustack.kvcache.spi.AttachmentRequest;
import ai.gpustack.kvcache.spi.CacheAttachment;
import ai.gpustack.kvcache.spi.ClientConfigFile;
import ai.gpustack.kvcache.spi.Engine;
import ai.gpustack.kvcache.spi.EngineRegistry;
import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.core.io.JsonStringEncoder;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;

/**
 * Pod injection (mutating, CREATE): attaches an opted-in Pod's target container to its Binding's
 * cache, through the {@link AttachmentResolver} the operator renders with. Every refusal happens
 * before any mutation, so a refused Pod is unchanged; the patch touches only the target container,
 * {@code spec.volumes} and the two injection annotations.
 */
final class PodInjection implements Rule {
  private static final JsonStringEncoder STRINGS = JsonStringEncoder.getInstance();
  private static final ObjectMapper JSON = new ObjectMapper();

  /** Fragments beyond this many are dropped: far more distinct attachments than a cluster has. */
  private static final int MAX_FRAGMENTS = 1024;

  private final EngineRegistry engines;
  private final AttachmentResolver resolver;
  private final ClusterView cluster;
  private final ObjectReader reader;
  private final Map<FragmentsKey, Fragments> fragments = new ConcurrentHashMap<>();

  PodInjection(
      EngineRegistry engines,
      AttachmentResolver resolver,
      ClusterView cluster,
      ObjectReader reader) {
    this.engines = engines;
    this.resolver = resolver;
    this.cluster = cluster;
    this.reader = reader;
  }

  @Override
  public Decision decide(Request request) {
    PodShape pod = reader.read(request.object(), PodShape.class);
    Map<String, String> labels =
        PodRules.orEmpty(pod.metadata() == null ? null : pod.metadata().labels());
    if (!"true".equals(labels.get(Keys.INJECT))) {
      return Decision.allow(List.of());
    }
    Map<String, String> annotations = PodRules.orEmpty(pod.metadata().annotations());
    Problems problems = Problems.create();
    List<String> warnings = new ArrayList<>();
    Optional<Engine> engine = annotationRules(labels, annotations, problems);
    PodRules.shape(pod, problems);
    if (!problems.isEmpty()) {
      return Decision.of(request.subject(), problems, warnings);
    }

    Engine e = engine.get();
    String bindingName = annotations.get(Keys.BINDING);
    Optional<String> version = Optional.ofNullable(annotations.get(Keys.ENGINE_VERSION));
    EffectiveSettings settings = cluster.settings();
    Attachment attachment = attachment(request, pod, bindingName, e, version, settings);
    attachment.refusal().filter(r -> !r.aboutDtype()).ifPresent(r -> problems.add(r.problem()));

    int index = PodRules.target(pod, annotations.get(Keys.CONTAINER), problems);
    PodRules.Target target = index < 0 ? null : PodRules.Target.of(pod, index);
    String launchProgram =
        target == null
            ? ""
            : PodRules.containerRules(
                pod,
                target,
                e,
                version,
                settings.kvCacheDtypeOwned(),
                "KVCachePoolBinding " + quote(bindingName),
                annotations.get(Keys.LAUNCH_ARGS_FORWARDED),
                problems,
                warnings);
    attachment.refusal().filter(Refusal::aboutDtype).ifPresent(r -> problems.add(r.problem()));
    warnings.addAll(attachment.warnings());
    if (!problems.isEmpty()) {
      return Decision.of(request.subject(), problems, warnings);
    }
    AttachmentRequest attach = attachment.request(RoleKind.Server).orElseThrow();
    return mutate(request, target, e, attach, bindingName, launchProgram, warnings);
  }

  /**
   * The Pod's labels and annotations: no unknown key, a Binding named, a registered engine, and the
   * forwarded-args flag spelled. Returns the engine when it is registered.
   */
  private Optional<Engine> annotationRules(
      Map<String, String> labels, Map<String, String> annotations, Problems problems) {
    PodRules.vocabulary(labels, annotations, problems);
    PodRules.bindingName(annotations.get(Keys.BINDING), problems);
    Optional<Engine> engine = engine(annotations.get(Keys.ENGINE), problems);
    engine
        .flatMap(
            e ->
                Refusal.engineVersionUnread(
                    e,
                    "metadata.annotations[" + Keys.ENGINE_VERSION + "]",
                    Optional.ofNullable(annotations.get(Keys.ENGINE_VERSION))))
        .ifPresent(problems::add);
    PodRules.forwarded(annotations.get(Keys.LAUNCH_ARGS_FORWARDED), problems);
    return engine;
  }

  private Optional<Engine> engine(String name, Problems problems) {
    String field = "metadata.annotations[" + Keys.ENGINE + "]";
    if (name == null || name.isBlank()) {
      problems.required(field, Message.POD_ENGINE_REQUIRED.detail(registered()));
      return Optional.empty();
    }
    Optional<Engine> engine = engines.find(name);
    if (engine.isEmpty()) {
      problems.add(Refusal.engineNotRegistered(engines, field, name));
    }
    return engine;
  }

  /** What the Pod's Binding attaches it to, resolved as the operator resolves a deployment. */
  private Attachment attachment(
      Request request,
      PodShape pod,
      String bindingName,
      Engine engine,
      Optional<String> version,
      EffectiveSettings settings) {
    String namespace = pod.metadata().namespace();
    if (namespace == null || namespace.isEmpty()) {
      namespace = request.namespace();
    }
    return resolver.resolve(
        BindingRef.pod(namespace, bindingName),
        Workload.admitted(Workload.POD, Objects.requireNonNullElse(pod.metadata().name(), "")),
        engine,
        version,
        settings,
        cluster);
  }

  /**
   * Writes the JSON Patch against the request's object: appends to the target container's args, env
   * and volumeMounts, adds the config volume and the two annotations. Nothing else can appear in
   * it, and no round trip through the Pod model is needed.
   */
  private Decision mutate(
      Request request,
      PodRules.Target target,
      Engine engine,
      AttachmentRequest attach,
      String binding,
      String launchProgram,
      List<String> warnings) {
    JsonNode original = request.object();
    JsonNode targetNode = original.path("spec").path("containers").path(target.index());
    String at = "/spec/containers/" + target.index();
    Fragments fragments = fragments(new FragmentsKey(engine, attach, binding, launchProgram));
    CacheAttachment attachment = fragments.attachment();
    List<String> appended =
        engine.appendedArgs(target.command(), target.args(), attach, attachment);

    PatchWriter patch = new PatchWriter();
    patch.append(
        targetNode.path("args"),
        at + "/args",
        appended.stream().map(PatchWriter.Value::string).toList());
    List<PatchWriter.Value> env = new ArrayList<>(fragments.env());
    if (!fragments.defaultedEnv().isEmpty()) {
      Set<String> declared = new HashSet<>();
      PodRules.orEmpty(target.container().env()).forEach(v -> declared.add(v.name()));
      fragments.defaultedEnv().stream()
          .filter(v -> !declared.contains(v.name()))
          .forEach(v -> env.add(v.value()));
    }
    patch.append(targetNode.path("env"), at + "/env", env);
    if (fragments.volume() != null) {
      patch.append(
          targetNode.path("volumeMounts"), at + "/volumeMounts", List.of(fragments.mount()));
      patch.append(
          original.path("spec").path("volumes"), "/spec/volumes", List.of(fragments.volume()));
    }
    // The Pod has annotations: it names its Binding in one.
    fragments.annotations().forEach(patch::operation);
    return Decision.patch(patch.finish(), warnings);
  }

  /** A variable the engine sets only where the Pod declares none. */
  private record Defaulted(String name, PatchWriter.Value value) {}

  /** What a cached {@link Fragments} was made for. */
  private record FragmentsKey(
      Engine engine, AttachmentRequest attach, String binding, String launchProgram) {}

  /**
   * The parts of an injection that depend on the attachment alone, serialized: the engine's
   * attachment, its env and defaulted env, the config volume and mount (null without a config file)
   * and the two annotation operations.
   */
  private record Fragments(
      CacheAttachment attachment,
      List<PatchWriter.Value> env,
      List<Defaulted> defaultedEnv,
      PatchWriter.Value volume,
      PatchWriter.Value mount,
      List<PatchWriter.Value> annotations) {}

  /**
   * The fragments for {@code key}, made once: engines are deterministic, and a cluster has few
   * distinct attachments, so every Pod of a workload after the first reuses them. Emptied when it
   * outgrows {@link #MAX_FRAGMENTS} (a pool's endpoint or a Setting changing makes new keys).
   */
  private Fragments fragments(FragmentsKey key) {
    if (fragments.size() >= MAX_FRAGMENTS) {
      fragments.clear();
    }
    return fragments.computeIfAbsent(key, PodInjection::makeFragments);
  }

  private static Fragments makeFragments(FragmentsKey key) {
    Engine engine = key.engine();
    AttachmentRequest attach = key.attach();
    CacheAttachment attachment = engine.attachment(attach);
    Map<String, String> annotations = new LinkedHashMap<>();
    attachment
        .clientConfig()
        .ifPresent(config -> annotations.put(Keys.CLIENT_CONFIG, config.content()));
    Map<String, String> record = new LinkedHashMap<>();
    record.put("binding", key.binding());
    record.put("engine", engine.id());
    record.put("domain", attach.domain().name());
    attach.dtype().ifPresent(d -> record.put("dtype", d.value()));
    record.put("vehicle", attachment.clientConfig().isPresent() ? "file" : "environment");
    record.put("launchProgram", key.launchProgram());
    annotations.put(Keys.INJECTED, json(record));
    List<PatchWriter.Value> operations = new ArrayList<>();
    annotations.forEach(
        (k, v) ->
            operations.add(
                PatchWriter.addOperation(
                    "/metadata/annotations/" + pointer(k), PatchWriter.Value.string(v))));
    PatchWriter.Value volume = null;
    PatchWriter.Value mount = null;
    if (attachment.clientConfig().isPresent()) {
      ClientConfigFile config = attachment.clientConfig().get();
      try {
        volume = PatchWriter.Value.raw(JSON.writeValueAsString(ConfigVolume.volume(config)));
        mount = PatchWriter.Value.raw(JSON.writeValueAsString(ConfigVolume.mount(config)));
      } catch (JsonProcessingException e) {
        throw new IllegalStateException("a Volume does not serialize", e);
      }
    }
    return new Fragments(
        attachment,
        attachment.env().stream().map(PodInjection::envVar).toList(),
        attachment.defaultedEnv().stream().map(v -> new Defaulted(v.name(), envVar(v))).toList(),
        volume,
        mount,
        List.copyOf(operations));
  }

  private static PatchWriter.Value envVar(EnvVar v) {
    Map<String, String> fields = new LinkedHashMap<>();
    fields.put("name", v.name());
    fields.put("value", v.value());
    return PatchWriter.Value.raw(json(fields));
  }

  /** A JSON Pointer token: {@code ~} and {@code /} escaped. */
  private static String pointer(String key) {
    return key.replace("~", "~0").replace("/", "~1");
  }

  private String registered() {
    return engines.isEmpty()
        ? "no engine module is registered"
        : String.join(", ", engines.engines().stream().map(Engine::id).toList());
  }

  /** A flat JSON object of strings, in insertion order. */
  private static String json(Map<String, String> fields) {
    StringBuilder out = new StringBuilder(192).append('{');
    fields.forEach(
        (k, v) -> {
          if (out.length() > 1) {
            out.append(',');
          }
          out.append('"');
          STRINGS.quoteAsString(k, out);
          out.append("\":\"");
          STRINGS.quoteAsString(v, out);
          out.append('"');
        });
    return out.append('}').toString();
  }
}
