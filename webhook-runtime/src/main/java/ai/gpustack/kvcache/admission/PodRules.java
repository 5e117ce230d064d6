package ai.gpustack.kvcache.admission;

import static ai.gpustack.kvcache.api.Quoting.quote;

import ai.gpustack.kvcache.api.Message;
import ai.gpustack.kvcache.api.Problems;
import ai.gpustack.kvcache.attach.BindingRef;
import ai.gpustack.kvcache.attach.OwnedFlags;
import ai.gpustack.kvcache.resources.Keys;
import ai.gpustack.kvcache.spi.ClientConfigFile;
import ai.gpustack.kvcache.spi.Engine;
import ai.gpustack.kvcache.spi.Launch;
import ai.gpustack.kvcache.spi.LaunchKind;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.TreeSet;

/**
 * What an opted-in Pod must be before {@link PodInjection} patches it: its injection keys, the
 * shape of its entries, its target container and how that container launches the engine. The rules
 * only add problems; none mutates.
 */
final class PodRules {
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

  /** Where a Pod names its Binding. */

  /** The target container and its argv, null entries read as empty strings. */
  record Target(int index, PodShape.Container container, List<String> command, List<String> args) {
    static Target of(PodShape pod, int index) {
      PodShape.Container container = pod.spec().containers().get(index);
      return new Target(index, container, strings(container.command()), strings(container.args()));
    }
  }

  private PodRules() {}

  /** The Binding annotation: required, and a name in the Pod's namespace. */
  static void bindingName(String name, Problems problems) {
    if (name == null || name.isBlank()) {
      problems.required(BindingRef.POD_FIELD, Message.POD_BINDING_REQUIRED.detail());
    } else if (name.contains("/")) {
      problems.invalid(BindingRef.POD_FIELD, name, Message.POD_BINDING_NAMESPACED.detail());
    }
  }

  /** The forwarded-args annotation, when present, says {@code true}. */
  static void forwarded(String forwarded, Problems problems) {
    if (forwarded != null && !forwarded.equals("true")) {
      problems.invalid(
          "metadata.annotations[" + Keys.LAUNCH_ARGS_FORWARDED + "]",
          forwarded,
          Message.POD_LAUNCH_FORWARDED_VALUE.detail());
    }
  }

  /**
   * What the target container may not do: pass a flag or set a variable the injection owns, hold
   * the config volume's name, or launch the engine where appended args cannot reach it. Returns the
   * launch program for the injection record.
   */
  static String containerRules(
      PodShape pod,
      Target target,
      Engine engine,
      Optional<String> version,
      boolean dtypeOwned,
      String dtypeSource,
      String forwarded,
      Problems problems,
      List<String> warnings) {
    PodShape.Container container = target.container();
    List<String> command = target.command();
    List<String> args = target.args();
    String at = "spec.containers[" + target.index() + "]";
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
  static void shape(PodShape pod, Problems problems) {
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

  static void vocabulary(
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
  static int target(PodShape pod, String name, Problems problems) {
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

  /** An argv list with null entries (which no API server stores) read as empty strings. */
  private static List<String> strings(List<String> list) {
    if (list == null) {
      return List.of();
    }
    return list.contains(null) ? list.stream().map(s -> s == null ? "" : s).toList() : list;
  }

  static <T> List<T> orEmpty(List<T> list) {
    return list == null ? List.of() : list;
  }

  static Map<String, String> orEmpty(Map<String, String> map) {
    return map == null ? new HashMap<>() : map;
  }
}
