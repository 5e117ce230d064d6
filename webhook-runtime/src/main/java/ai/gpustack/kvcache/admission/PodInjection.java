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
import ai.gpustack.kvcache.attach.OwnedFlags;
import ai.gpustack.kvcache.attach.Refusal;
import ai.gpustack.kvcache.attach.Workload;
import ai.gpustack.kvcache.cluster.ClusterView;
import ai.gpustack.kvcache.resources.Keys;
import ai.gpustack.kvcache.spi.AttachmentRequest;
import ai.gpustack.kvcache.spi.CacheAttachment;
import ai.gpustack.kvcache.spi.ClientConfigFile;
import ai.gpustack.kvcache.spi.Engine;
import ai.gpustack.kvcache.spi.EngineRegistry;
import ai.gpustack.kvcache.spi.Launch;
import ai.gpustack.kvcache.spi.LaunchKind;
import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.core.io.JsonStringEncoder;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.Set;
import java.util.TreeSet;
import java.util.concurrent.ConcurrentHashMap;

/**
 * Pod injection (mutating, CREATE): attaches an opted-in Pod's target container to its Binding's
 * cache, through the {@link AttachmentResolver} the operator renders with. Every refusal happens
 * before any mutation, so a refused Pod is unchanged; the patch touches only the target container,
 * {@code spec.volumes} and the two injection annotations.
 */
final class PodInjection implements Rule {
  /** The keys a person may write; everything else under the prefix is refused. */
  static final Set<String> READ_ANNOTATIONS =
      Set.of(
          Keys.BINDING,
          Keys.ENGINE,
          Keys.ENGINE_VERSION,
          Keys.CONTAINER,
          Keys.LAUNCH_ARGS_FORWARDED);

  /** The keys a person may write, as an unknown key's refusal lists them. */
  private static final String KNOWN_KEYS =
      String.join(", ", new TreeSet<>(READ_ANNOTATIONS)) + " and the label " + Keys.INJECT;

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
    Map<String, String> labels = orEmpty(pod.metadata() == null ? null : pod.metadata().labels());
    if (!"true".equals(labels.get(Keys.INJECT))) {
      return Decision.allow(List.of());
    }
    Map<String, String> annotations = orEmpty(pod.metadata().annotations());
    Problems problems = Problems.create();
    List<String> warnings = new ArrayList<>();

    vocabulary(labels, annotations, problems);
    String bindingName = annotations.get(Keys.BINDING);
    String bindingField = "metadata.annotations[" + Keys.BINDING + "]";
    if (bindingName == null || bindingName.isBlank()) {
      problems.required(bindingField, Message.POD_BINDING_REQUIRED.detail());
    } else if (bindingName.contains("/")) {
      problems.invalid(bindingField, bindingName, Message.POD_BINDING_NAMESPACED.detail());
    }
    String engineName = annotations.get(Keys.ENGINE);
    String engineField = "metadata.annotations[" + Keys.ENGINE + "]";
    Optional<Engine> engine = Optional.empty();
    if (engineName == null || engineName.isBlank()) {
      problems.required(engineField, Message.POD_ENGINE_REQUIRED.detail(registered()));
    } else {
      engine = engines.find(engineName);
      if (engine.isEmpty()) {
        problems.add(Refusal.engineNotRegistered(engines, engineField, engineName));
      }
    }
    String forwarded = annotations.get(Keys.LAUNCH_ARGS_FORWARDED);
    if (forwarded != null && !forwarded.equals("true")) {
      problems.invalid(
          "metadata.annotations[" + Keys.LAUNCH_ARGS_FORWARDED + "]",
          forwarded,
          Message.POD_LAUNCH_FORWARDED_VALUE.detail());
    }
    shape(pod, problems);
    if (!problems.isEmpty()) {
      return Decision.of(request.subject(), problems, warnings);
    }

    String namespace = pod.metadata().namespace();
    if (namespace == null || namespace.isEmpty()) {
      namespace = request.namespace();
    }
    Engine e = engine.get();
    Optional<String> version = Optional.ofNullable(annotations.get(Keys.ENGINE_VERSION));
    EffectiveSettings settings = cluster.settings();
    Attachment attachment =
        resolver.resolve(
            new BindingRef(namespace, bindingName, bindingField),
            Workload.admitted(Workload.POD, Objects.requireNonNullElse(pod.metadata().name(), "")),
            e,
            version,
            settings,
            cluster);
    attachment.refusal().filter(r -> !r.aboutDtype()).ifPresent(r -> problems.add(r.problem()));

    int target = target(pod, annotations.get(Keys.CONTAINER), problems);
    String launchProgram = "";
    PodShape.Container container = null;
    List<String> command = List.of();
    List<String> args = List.of();
    if (target >= 0) {
      container = pod.spec().containers().get(target);
      command = strings(container.command());
      args = strings(container.args());
      launchProgram =
          containerRules(
              pod,
              container,
              target,
              command,
              args,
              e,
              version,
              settings.kvCacheDtypeOwned(),
              "KVCachePoolBinding " + quote(bindingName),
              forwarded,
              problems,
              warnings);
    }
    attachment.refusal().filter(Refusal::aboutDtype).ifPresent(r -> problems.add(r.problem()));
    warnings.addAll(attachment.warnings());
    if (!problems.isEmpty()) {
      return Decision.of(request.subject(), problems, warnings);
    }
    return mutate(
        request,
        container,
        command,
        args,
        target,
        e,
        attachment.request(RoleKind.Server).orElseThrow(),
        bindingName,
        launchProgram,
        warnings);
  }

  /**
   * What the target container may not do: pass a flag or set a variable the injection owns, hold
   * the config volume's name, or launch the engine where appended args cannot reach it. Returns the
   * launch program for the injection record.
   */
  private static String containerRules(
      PodShape pod,
      PodShape.Container container,
      int target,
      List<String> command,
      List<String> args,
      Engine engine,
      Optional<String> version,
      boolean dtypeOwned,
      String dtypeSource,
      String forwarded,
      Problems problems,
      List<String> warnings) {
    String at = "spec.containers[" + target + "]";
    OwnedFlags.Verdict owned =
        OwnedFlags.check(
            engine,
            version,
            OwnedFlags.Subject.container(
                container.name(),
                at,
                command,
                args,
                orEmpty(container.env()).stream().map(PodShape.Named::name).toList()),
            dtypeOwned,
            dtypeSource);
    owned.refusals().forEach(problems::add);
    warnings.addAll(owned.warnings());
    List<PodShape.Named> volumes = orEmpty(pod.spec().volumes());
    for (int v = 0; v < volumes.size(); v++) {
      if (ClientConfigFile.VOLUME.equals(volumes.get(v).name())) {
        problems.forbidden(
            "spec.volumes[" + v + "].name",
            Message.POD_VOLUME_TAKEN.detail(ClientConfigFile.VOLUME));
      }
    }
    List<String> argv = new ArrayList<>(command);
    argv.addAll(args);
    return launch(container, command, argv, engine, "true".equals(forwarded), at, problems);
  }

  /**
   * Entries no API server stores (a null container, env var or volume, a nameless container):
   * refused naming the field, before any rule reads them.
   */
  private static void shape(PodShape pod, Problems problems) {
    if (pod.spec() == null) {
      problems.required("spec", "a Pod runs at least one container");
      return;
    }
    List<PodShape.Container> containers = orEmpty(pod.spec().containers());
    for (int i = 0; i < containers.size(); i++) {
      PodShape.Container c = containers.get(i);
      if (c == null || c.name() == null) {
        problems.required("spec.containers[" + i + "].name", "every container has a name");
        continue;
      }
      List<PodShape.Named> env = orEmpty(c.env());
      for (int k = 0; k < env.size(); k++) {
        if (env.get(k) == null || env.get(k).name() == null) {
          problems.required(
              "spec.containers[" + i + "].env[" + k + "].name", "every variable has a name");
        }
      }
    }
    List<PodShape.Container> init = orEmpty(pod.spec().initContainers());
    for (int i = 0; i < init.size(); i++) {
      if (init.get(i) == null || init.get(i).name() == null) {
        problems.required("spec.initContainers[" + i + "].name", "every container has a name");
      }
    }
    List<PodShape.Named> volumes = orEmpty(pod.spec().volumes());
    for (int v = 0; v < volumes.size(); v++) {
      if (volumes.get(v) == null || volumes.get(v).name() == null) {
        problems.required("spec.volumes[" + v + "].name", "every volume has a name");
      }
    }
  }

  /**
   * Writes the JSON Patch against the request's object: appends to the target container's args, env
   * and volumeMounts, adds the config volume and the two annotations. Nothing else can appear in
   * it, and no round trip through the Pod model is needed.
   */
  private Decision mutate(
      Request request,
      PodShape.Container container,
      List<String> command,
      List<String> args,
      int target,
      Engine engine,
      AttachmentRequest attach,
      String binding,
      String launchProgram,
      List<String> warnings) {
    JsonNode original = request.object();
    JsonNode targetNode = original.path("spec").path("containers").path(target);
    String at = "/spec/containers/" + target;
    Fragments fragments = fragments(new FragmentsKey(engine, attach, binding, launchProgram));
    CacheAttachment attachment = fragments.attachment();
    List<String> appended = engine.appendedArgs(command, args, attach, attachment);

    PatchWriter patch = new PatchWriter();
    patch.append(
        targetNode.path("args"),
        at + "/args",
        appended.stream().map(PatchWriter.Value::string).toList());
    List<PatchWriter.Value> env = new ArrayList<>(fragments.env());
    if (!fragments.defaultedEnv().isEmpty()) {
      Set<String> declared = new HashSet<>();
      orEmpty(container.env()).forEach(v -> declared.add(v.name()));
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

  private static void vocabulary(
      Map<String, String> labels, Map<String, String> annotations, Problems problems) {
    for (String key : unknown(labels.keySet(), Set.of(Keys.INJECT))) {
      problems.forbidden(
          "metadata.labels[" + key + "]", Message.POD_UNKNOWN_KEY.detail(key, KNOWN_KEYS));
    }
    for (String key : unknown(annotations.keySet(), READ_ANNOTATIONS)) {
      problems.forbidden(
          "metadata.annotations[" + key + "]", Message.POD_UNKNOWN_KEY.detail(key, KNOWN_KEYS));
    }
  }

  /** The keys under the injection prefix that are not {@code known}, sorted. */
  private static Set<String> unknown(Set<String> keys, Set<String> known) {
    Set<String> unknown = new TreeSet<>();
    for (String key : keys) {
      if (key.startsWith(Keys.INJECTION_PREFIX) && !known.contains(key)) {
        unknown.add(key);
      }
    }
    return unknown;
  }

  /** The target container's index, or -1 with the problem; {@link #shape} vetted the entries. */
  private static int target(PodShape pod, String name, Problems problems) {
    List<PodShape.Container> containers = orEmpty(pod.spec().containers());
    String field = "metadata.annotations[" + Keys.CONTAINER + "]";
    List<String> names = containers.stream().map(PodShape.Container::name).toList();
    if (name == null) {
      if (containers.size() == 1) {
        return 0;
      }
      problems.required(field, Message.POD_CONTAINER_REQUIRED.detail(containers.size()));
      return -1;
    }
    int index = names.indexOf(name);
    if (index >= 0) {
      return index;
    }
    boolean init =
        orEmpty(pod.spec().initContainers()).stream().anyMatch(c -> name.equals(c.name()));
    if (init) {
      problems.invalid(field, name, Message.POD_CONTAINER_INIT.detail(quote(name)));
    } else {
      problems.notFound(
          field,
          name,
          Message.POD_CONTAINER_NOT_FOUND.detail(quote(name), String.join(", ", names)));
    }
    return -1;
  }

  /** The launch program, refusing a launch the appended args may never reach. */
  private static String launch(
      PodShape.Container container,
      List<String> command,
      List<String> argv,
      Engine engine,
      boolean forwarded,
      String at,
      Problems problems) {
    String name = quote(container.name());
    if (argv.isEmpty()) {
      problems.required(at + ".command", Message.POD_NO_ARGV.detail(name));
      return "";
    }
    Launch launch = command.isEmpty() ? Launch.identify(List.of()) : Launch.identify(argv);
    if (launch.kind() == LaunchKind.SHELL) {
      problems.forbidden(at + ".command", Message.POD_SHELL_LAUNCH.detail(name, launch.program()));
    } else if (launch.kind() == LaunchKind.SCRIPT) {
      problems.forbidden(
          at + ".command", Message.POD_SCRIPT_LAUNCH.detail(name, quote(launch.program())));
    } else if (!engine.launchedBy(launch) && !forwarded) {
      problems.forbidden(
          at + ".command",
          Message.POD_UNKNOWN_LAUNCH.detail(
              name,
              launch.kind() == LaunchKind.UNKNOWN
                  ? "the image's entrypoint"
                  : quote(launch.program()),
              quote(engine.id()),
              String.join(", ", new TreeSet<>(engine.launchPrograms()))));
    }
    return launch.kind() == LaunchKind.UNKNOWN ? "(image entrypoint)" : launch.program();
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

  /** An argv list with null entries (which no API server stores) read as empty strings. */
  private static List<String> strings(List<String> list) {
    if (list == null) {
      return List.of();
    }
    return list.contains(null) ? list.stream().map(s -> s == null ? "" : s).toList() : list;
  }

  private static <T> List<T> orEmpty(List<T> list) {
    return list == null ? List.of() : list;
  }

  private static Map<String, String> orEmpty(Map<String, String> map) {
    return map == null ? new HashMap<>() : map;
  }
}
