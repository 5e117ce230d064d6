package ai.gpustack.kvcache.operator.cli;

import ai.gpustack.kvcache.api.SettingDefinition;
import ai.gpustack.kvcache.api.Settings;
import ai.gpustack.kvcache.cluster.Manifests;
import ai.gpustack.kvcache.cluster.MemoryClusterView;
import ai.gpustack.kvcache.operator.render.PodRenderer;
import ai.gpustack.kvcache.operator.render.RenderException;
import ai.gpustack.kvcache.operator.render.Rendering;
import ai.gpustack.kvcache.resources.KvCacheSerialization;
import ai.gpustack.kvcache.resources.ModelDeployment;
import io.fabric8.kubernetes.api.model.HasMetadata;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.client.utils.KubernetesSerialization;
import java.io.PrintWriter;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.Callable;
import java.util.stream.Collectors;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

/** {@code kvcache render}: the Pods each ModelDeployment would get, from files, no cluster. */
@Command(
    name = "render",
    mixinStandardHelpOptions = true,
    description = {
      "Prints, as multi-document YAML, the Pods the reference operator would create for each"
          + " ModelDeployment in the files, resolving the Bindings, Pools and Backends they name"
          + " from the same files. No cluster is read.",
      "Exit codes: 0 rendered; 1 a deployment could not render, or its rollout would be held"
          + " because its Binding's dtype is refused (message on stderr); 2 unreadable input."
    })
final class RenderCommand implements Callable<Integer> {
  @Option(
      names = {"-f", "--filename"},
      description = "Manifest files or directories.")
  List<Path> files = new ArrayList<>();

  @Option(
      names = "--setting",
      paramLabel = "NAME=VALUE",
      description = "A Setting's value, as if set in the cluster (repeatable).")
  Map<String, String> settings = new LinkedHashMap<>();

  @CommandLine.Spec CommandLine.Model.CommandSpec spec;

  @Override
  public Integer call() {
    PrintWriter out = spec.commandLine().getOut();
    PrintWriter err = spec.commandLine().getErr();
    List<HasMetadata> objects;
    try {
      objects = Manifests.objects(files);
    } catch (Manifests.UnreadableManifest e) {
      err.println("kvcache render: " + e.getMessage());
      return 2;
    }
    Optional<String> unknown = unknownSetting();
    if (unknown.isPresent()) {
      err.println(unknown.get());
      return 2;
    }
    List<ModelDeployment> deployments =
        objects.stream()
            .filter(ModelDeployment.class::isInstance)
            .map(ModelDeployment.class::cast)
            .toList();
    if (deployments.isEmpty()) {
      err.println("kvcache render: no ModelDeployment in " + files);
      return 2;
    }
    MemoryClusterView cluster = MemoryClusterView.of(objects);
    for (Map.Entry<String, String> s : settings.entrySet()) {
      cluster = cluster.withSetting(s.getKey(), s.getValue());
    }
    PodRenderer renderer = new PodRenderer(Engines.load(spec.commandLine()));
    KubernetesSerialization yaml = KvCacheSerialization.create();
    int code = 0;
    for (ModelDeployment md : deployments) {
      if (!render(md, renderer, cluster, yaml, out, err)) {
        code = 1;
      }
    }
    out.flush();
    return code;
  }

  /** Why the first --setting naming no Setting is refused; empty when every one names one. */
  private Optional<String> unknownSetting() {
    return settings.keySet().stream()
        .filter(name -> Settings.find(name).isEmpty())
        .findFirst()
        .map(
            name ->
                "kvcache render: --setting "
                    + name
                    + ": no such Setting; the catalog is "
                    + Settings.catalog().stream()
                        .map(SettingDefinition::name)
                        .collect(Collectors.joining(", ")));
  }

  /**
   * Prints {@code md}'s Pods as YAML; false, with why on {@code err}, when it has none to print.
   */
  private static boolean render(
      ModelDeployment md,
      PodRenderer renderer,
      MemoryClusterView cluster,
      KubernetesSerialization yaml,
      PrintWriter out,
      PrintWriter err) {
    if (md.getMetadata().getNamespace() == null) {
      md.getMetadata().setNamespace("default");
    }
    String subject =
        "kvcache render: ModelDeployment "
            + md.getMetadata().getNamespace()
            + "/"
            + md.getMetadata().getName()
            + ": ";
    try {
      Rendering rendering = renderer.render(md, cluster);
      if (rendering.isHeld()) {
        // The operator creates and replaces nothing for it: there are no Pods to print.
        err.println(
            subject
                + "DtypeAccepted=False ("
                + rendering.held().orElseThrow().reason()
                + "): "
                + rendering.heldMessage().orElseThrow());
        return false;
      }
      for (Rendering.RolePlan role : rendering.roles()) {
        for (Pod pod : role.pods()) {
          out.print(yaml.asYaml(pod));
        }
      }
      return true;
    } catch (RenderException e) {
      err.println(subject + e.getMessage());
      return false;
    }
  }
}
