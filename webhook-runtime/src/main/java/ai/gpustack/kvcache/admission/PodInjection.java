package ai.gpustack.kvcache.admission;

import static ai.gpustack.kvcache.api.Quoting.quote;

import ai.gpustack.kvcache.api.Dtype;
import ai.gpustack.kvcache.api.EffectiveSettings;
import ai.gpustack.kvcache.api.EnvVar;
import ai.gpustack.kvcache.api.Problems;
import ai.gpustack.kvcache.api.ProblemsException;
import ai.gpustack.kvcache.api.SpellingCheck;
import ai.gpustack.kvcache.cluster.ClusterView;
import ai.gpustack.kvcache.resources.KVCacheBackend;
import ai.gpustack.kvcache.resources.KVCachePool;
import ai.gpustack.kvcache.resources.KVCachePoolBinding;
import ai.gpustack.kvcache.resources.Keys;
import ai.gpustack.kvcache.spi.AttachmentRequest;
import ai.gpustack.kvcache.spi.CacheAttachment;
import ai.gpustack.kvcache.spi.ClientConfigFile;
import ai.gpustack.kvcache.spi.Engine;
import ai.gpustack.kvcache.spi.EngineRegistry;
import ai.gpustack.kvcache.spi.FlagOccurrence;
import ai.gpustack.kvcache.spi.FlagReader;
import ai.gpustack.kvcache.spi.Launch;
import ai.gpustack.kvcache.spi.LaunchKind;
import ai.gpustack.kvcache.spi.Vehicle;
import com.fasterxml.jackson.core.io.JsonStringEncoder;
import com.fasterxml.jackson.databind.JsonNode;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.TreeSet;

/**
 * Pod injection (mutating, CREATE): attaches an opted-in Pod's target container to its Binding's
 * cache. Every refusal happens before any mutation, so a refused Pod is unchanged; the patch
 * touches only the target container, {@code spec.volumes} and the two injection annotations.
 */
final class PodInjection {
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

  /** Where the config volume reads the client config from. */
  private static final String CLIENT_CONFIG_FIELD =
      "metadata.annotations['" + Keys.CLIENT_CONFIG + "']";

  private final EngineRegistry engines;
  private final ClusterView cluster;
  private final ObjectReader reader;

  PodInjection(EngineRegistry engines, ClusterView cluster, ObjectReader reader) {
    this.engines = engines;
    this.cluster = cluster;
    this.reader = reader;
  }

  Decision decide(Request request) {
    if (!request.isCreate()) {
      return Decision.allow(List.of());
    }
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
      problems.required(bindingField, Refusal.POD_BINDING_REQUIRED.detail());
    } else if (bindingName.contains("/")) {
      problems.invalid(bindingField, bindingName, Refusal.POD_BINDING_NAMESPACED.detail());
    }
    String engineName = annotations.get(Keys.ENGINE);
    String engineField = "metadata.annotations[" + Keys.ENGINE + "]";
    Optional<Engine> engine = Optional.empty();
    if (engineName == null || engineName.isBlank()) {
      problems.required(engineField, Refusal.POD_ENGINE_REQUIRED.detail(registered()));
    } else {
      engine = engines.find(engineName);
      if (engine.isEmpty()) {
        problems.notSupported(
            engineField,
            engineName,
            Refusal.DEPLOYMENT_ENGINE_UNKNOWN.detail(engines.unknown(engineName)));
      }
    }
    String forwarded = annotations.get(Keys.LAUNCH_ARGS_FORWARDED);
    if (forwarded != null && !forwarded.equals("true")) {
      problems.invalid(
          "metadata.annotations[" + Keys.LAUNCH_ARGS_FORWARDED + "]",
          forwarded,
          Refusal.POD_LAUNCH_FORWARDED_VALUE.detail());
    }
    if (!problems.isEmpty()) {
      return Admission.verdict(request, problems, warnings);
    }

    String namespace = pod.metadata().namespace();
    if (namespace == null || namespace.isEmpty()) {
      namespace = request.namespace();
    }
    Optional<KVCachePoolBinding> found = cluster.binding(namespace, bindingName);
    if (found.isEmpty()) {
      problems.notFound(
          bindingField,
          bindingName,
          Refusal.POD_BINDING_NOT_FOUND.detail(quote(bindingName), quote(namespace)));
      return Admission.verdict(request, problems, warnings);
    }
    KVCachePoolBinding binding = found.get();
    if (binding.getMetadata().getDeletionTimestamp() != null) {
      problems.forbidden(bindingField, Refusal.POD_BINDING_TERMINATING.detail(quote(bindingName)));
      return Admission.verdict(request, problems, warnings);
    }
    String poolName = binding.getSpec().poolRef().name();
    Optional<KVCachePool> pool = cluster.pool(poolName);
    if (pool.isEmpty()) {
      problems.notFound(
          bindingField,
          bindingName,
          Refusal.POD_POOL_NOT_FOUND.detail(quote(poolName), quote(bindingName)));
      return Admission.verdict(request, problems, warnings);
    }
    Optional<String> endpoint =
        pool.get().getStatus() == null ? Optional.empty() : pool.get().getStatus().clientEndpoint();
    if (endpoint.isEmpty()) {
      problems.invalid(
          bindingField, bindingName, Refusal.POD_POOL_NO_ENDPOINT.detail(quote(poolName)));
      return Admission.verdict(request, problems, warnings);
    }
    EffectiveSettings settings = cluster.settings();
    Optional<Dtype> dtype = Optional.empty();
    if (settings.kvCacheDtypeOwned()) {
      try {
        dtype = Optional.of(binding.getSpec().domain().checkedDtype());
      } catch (ProblemsException e) {
        problems.invalid(bindingField, bindingName, "the Binding's " + e.getMessage());
        return Admission.verdict(request, problems, warnings);
      }
    }

    List<PodShape.Container> containers =
        pod.spec() == null ? List.<PodShape.Container>of() : orEmpty(pod.spec().containers());
    int target = target(pod, annotations.get(Keys.CONTAINER), problems);
    if (!problems.isEmpty()) {
      return Admission.verdict(request, problems, warnings);
    }
    PodShape.Container container = containers.get(target);
    Engine e = engine.get();
    Optional<String> version = Optional.ofNullable(annotations.get(Keys.ENGINE_VERSION));
    List<String> command = strings(container.command());
    List<String> args = strings(container.args());
    String at = "spec.containers[" + target + "]";
    FlagReader flags = e.flagReader(version);
    List<String> argv = new ArrayList<>(command);
    argv.addAll(args);
    for (String flag : new TreeSet<>(e.ownedFlags())) {
      scan(
          flags,
          argv,
          command.size(),
          flag,
          at,
          (o, field) ->
              problems.forbidden(
                  field,
                  Refusal.POD_OWNED_FLAG.detail(
                      quote(container.name()), o.describe(e.id()), quote(e.id()))));
    }
    List<PodShape.Named> env = orEmpty(container.env());
    for (int k = 0; k < env.size(); k++) {
      if (e.ownedEnv().contains(env.get(k).name())) {
        problems.forbidden(
            at + ".env[" + k + "].name",
            Refusal.POD_OWNED_ENV.detail(
                quote(container.name()), env.get(k).name(), quote(e.id())));
      }
    }
    List<PodShape.Named> volumes = orEmpty(pod.spec().volumes());
    for (int v = 0; v < volumes.size(); v++) {
      if (volumes.get(v) != null && ClientConfigFile.VOLUME.equals(volumes.get(v).name())) {
        problems.forbidden(
            "spec.volumes[" + v + "].name",
            Refusal.POD_VOLUME_TAKEN.detail(ClientConfigFile.VOLUME));
      }
    }
    if (dtype.isPresent()) {
      scan(
          flags,
          argv,
          command.size(),
          e.dtypeFlag(),
          at,
          (o, field) ->
              problems.forbidden(
                  field,
                  Refusal.POD_DTYPE_FLAG.detail(quote(container.name()), o.describe(e.id()))));
    }
    String launchProgram =
        launch(container, command, argv, e, "true".equals(forwarded), at, problems);
    if (dtype.isPresent() && settings.spellingCheck() != SpellingCheck.Off) {
      Optional<String> rejected = DeploymentRules.spellingVerdict(e, version, binding, engines);
      if (rejected.isPresent()) {
        if (settings.spellingCheck() == SpellingCheck.Enforce) {
          problems.invalid(bindingField, bindingName, rejected.get());
        } else {
          warnings.add(rejected.get());
        }
      }
    }
    if (!problems.isEmpty()) {
      return Admission.verdict(request, problems, warnings);
    }

    boolean tenants =
        pool.get().getSpec().backends().stream()
            .findFirst()
            .flatMap(cluster::backend)
            .map(KVCacheBackend::getSpec)
            .map(s -> s.multiTenancy())
            .orElse(true);
    AttachmentRequest attach =
        AttachmentRequest.builder()
            .vehicle(Vehicle.INJECTED_POD)
            .clientEndpoint(endpoint.get())
            .domain(binding.getSpec().domain())
            .tenant(tenants ? Optional.of(binding.getSpec().domain().name()) : Optional.empty())
            .dtype(dtype)
            .engineVersion(version)
            .build();
    return mutate(
        request, container, command, args, target, e, attach, bindingName, launchProgram, warnings);
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
    CacheAttachment attachment = engine.attachment(attach);
    List<String> rendered = engine.renderInjectedArgs(command, args, attach, attachment);
    Map<String, String> annotations = new LinkedHashMap<>();
    attachment
        .clientConfig()
        .ifPresent(config -> annotations.put(Keys.CLIENT_CONFIG, config.content()));
    Map<String, String> record = new LinkedHashMap<>();
    record.put("binding", binding);
    record.put("engine", engine.id());
    record.put("domain", attach.domain().name());
    attach.dtype().ifPresent(d -> record.put("dtype", d.value()));
    record.put("vehicle", attachment.clientConfig().isPresent() ? "file" : "environment");
    record.put("launchProgram", launchProgram);
    annotations.put(Keys.INJECTED, json(record));

    PatchWriter patch = new PatchWriter();
    patch.append(
        targetNode.path("args"),
        at + "/args",
        rendered.subList(args.size(), rendered.size()).stream()
            .map(PatchWriter.Value::string)
            .toList());
    Set<String> declared = new HashSet<>();
    orEmpty(container.env()).forEach(v -> declared.add(v.name()));
    List<PatchWriter.Value> env = new ArrayList<>();
    attachment.env().forEach(v -> env.add(envVar(v)));
    attachment.defaultedEnv().stream()
        .filter(v -> !declared.contains(v.name()))
        .forEach(v -> env.add(envVar(v)));
    patch.append(targetNode.path("env"), at + "/env", env);
    attachment
        .clientConfig()
        .ifPresent(
            config -> {
              patch.append(
                  targetNode.path("volumeMounts"), at + "/volumeMounts", List.of(mount(config)));
              patch.append(
                  original.path("spec").path("volumes"), "/spec/volumes", List.of(volume(config)));
            });
    // The Pod has annotations: it names its Binding in one.
    annotations.forEach(
        (k, v) -> patch.add("/metadata/annotations/" + pointer(k), PatchWriter.Value.string(v)));
    return Decision.patch(patch.finish(), warnings);
  }

  private static PatchWriter.Value envVar(EnvVar v) {
    return json -> {
      json.writeStartObject();
      json.writeStringField("name", v.name());
      json.writeStringField("value", v.value());
      json.writeEndObject();
    };
  }

  /** The target container's mount of the config volume. */
  private static PatchWriter.Value mount(ClientConfigFile config) {
    return json -> {
      json.writeStartObject();
      json.writeStringField("name", ClientConfigFile.VOLUME);
      json.writeStringField("mountPath", config.directory());
      json.writeBooleanField("readOnly", true);
      json.writeEndObject();
    };
  }

  /** The config volume: the client-config annotation, as a file, through the downward API. */
  private static PatchWriter.Value volume(ClientConfigFile config) {
    return json -> {
      json.writeStartObject();
      json.writeStringField("name", ClientConfigFile.VOLUME);
      json.writeObjectFieldStart("downwardAPI");
      json.writeArrayFieldStart("items");
      json.writeStartObject();
      json.writeStringField("path", config.fileName());
      json.writeObjectFieldStart("fieldRef");
      json.writeStringField("fieldPath", CLIENT_CONFIG_FIELD);
      json.writeEndObject(); // fieldRef
      json.writeEndObject(); // items[0]
      json.writeEndArray(); // items
      json.writeEndObject(); // downwardAPI
      json.writeEndObject();
    };
  }

  /** A JSON Pointer token: {@code ~} and {@code /} escaped. */
  private static String pointer(String key) {
    return key.replace("~", "~0").replace("/", "~1");
  }

  private static void vocabulary(
      Map<String, String> labels, Map<String, String> annotations, Problems problems) {
    for (String key : unknown(labels.keySet(), Set.of(Keys.INJECT))) {
      problems.forbidden(
          "metadata.labels[" + key + "]", Refusal.POD_UNKNOWN_KEY.detail(key, KNOWN_KEYS));
    }
    for (String key : unknown(annotations.keySet(), READ_ANNOTATIONS)) {
      problems.forbidden(
          "metadata.annotations[" + key + "]", Refusal.POD_UNKNOWN_KEY.detail(key, KNOWN_KEYS));
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

  private static int target(PodShape pod, String name, Problems problems) {
    List<PodShape.Container> containers =
        pod.spec() == null ? List.<PodShape.Container>of() : orEmpty(pod.spec().containers());
    String field = "metadata.annotations[" + Keys.CONTAINER + "]";
    List<String> names = containers.stream().map(PodShape.Container::name).toList();
    if (name == null) {
      if (containers.size() == 1) {
        return 0;
      }
      problems.required(field, Refusal.POD_CONTAINER_REQUIRED.detail(containers.size()));
      return -1;
    }
    int index = names.indexOf(name);
    if (index >= 0) {
      return index;
    }
    boolean init =
        pod.spec() != null
            && orEmpty(pod.spec().initContainers()).stream()
                .anyMatch(c -> c != null && name.equals(c.name()));
    if (init) {
      problems.invalid(field, name, Refusal.POD_CONTAINER_INIT.detail(quote(name)));
    } else {
      problems.notFound(
          field,
          name,
          Refusal.POD_CONTAINER_NOT_FOUND.detail(quote(name), String.join(", ", names)));
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
      problems.required(at + ".command", Refusal.POD_NO_ARGV.detail(name));
      return "";
    }
    Launch launch = command.isEmpty() ? Launch.identify(List.of()) : Launch.identify(argv);
    if (launch.kind() == LaunchKind.SHELL) {
      problems.forbidden(at + ".command", Refusal.POD_SHELL_LAUNCH.detail(name, launch.program()));
    } else if (launch.kind() == LaunchKind.SCRIPT) {
      problems.forbidden(
          at + ".command", Refusal.POD_SCRIPT_LAUNCH.detail(name, quote(launch.program())));
    } else if (!engine.launchedBy(launch) && !forwarded) {
      problems.forbidden(
          at + ".command",
          Refusal.POD_UNKNOWN_LAUNCH.detail(
              name,
              launch.kind() == LaunchKind.UNKNOWN
                  ? "the image's entrypoint"
                  : quote(launch.program()),
              quote(engine.id()),
              String.join(", ", new TreeSet<>(engine.launchPrograms()))));
    }
    return launch.kind() == LaunchKind.UNKNOWN ? "(image entrypoint)" : launch.program();
  }

  /** Scans {@code argv} as the engine sees it; each hit names its own field, command or args. */
  private static void scan(
      FlagReader flags,
      List<String> argv,
      int commandSize,
      String flag,
      String at,
      java.util.function.BiConsumer<FlagOccurrence, String> refuse) {
    for (FlagOccurrence o : flags.find(argv, flag)) {
      String field =
          o.index() < commandSize
              ? at + ".command[" + o.index() + "]"
              : at + ".args[" + (o.index() - commandSize) + "]";
      refuse.accept(o, field);
    }
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
