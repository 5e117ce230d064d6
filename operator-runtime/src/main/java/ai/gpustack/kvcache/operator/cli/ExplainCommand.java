package ai.gpustack.kvcache.operator.cli;

import ai.gpustack.kvcache.api.Settings;
import ai.gpustack.kvcache.cluster.MemoryClusterView;
import ai.gpustack.kvcache.observe.DtypeObserver;
import ai.gpustack.kvcache.observe.PodProxyFetcher;
import ai.gpustack.kvcache.operator.explain.Explainer;
import ai.gpustack.kvcache.operator.explain.Explanation;
import ai.gpustack.kvcache.operator.explain.ExplanationText;
import ai.gpustack.kvcache.operator.explain.ObjectKind;
import ai.gpustack.kvcache.resources.KVCacheBackend;
import ai.gpustack.kvcache.resources.KVCachePool;
import ai.gpustack.kvcache.resources.KVCachePoolBinding;
import ai.gpustack.kvcache.resources.ModelDeployment;
import ai.gpustack.kvcache.resources.Setting;
import ai.gpustack.kvcache.spi.EngineRegistry;
import io.fabric8.kubernetes.api.model.HasMetadata;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.KubernetesClientException;
import java.io.PrintWriter;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.Callable;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;

/** {@code kvcache explain}: why an object gets the KV-cache dtype it gets, in words. */
@Command(
    name = "explain",
    mixinStandardHelpOptions = true,
    description = {
      "Why a ModelDeployment, a Pod or a Binding gets what it gets: the resolver's path (Binding,"
          + " pool, backend, endpoint), the Settings in force, the engine's spelling table and KV"
          + " format, every occurrence of an owned flag and how it is spelled, what is rendered or"
          + " injected, and what each Ready replica's engine reports, with the field paths.",
      "OBJECT is md/NAME, pod/NAME or binding/NAME (modeldeployment, kvcachepoolbinding and"
          + " kvcpb read too).",
      "Exit codes: 0 explained; 2 the object or the cluster could not be read."
    })
final class ExplainCommand implements Callable<Integer> {
  @Parameters(paramLabel = "OBJECT", description = "md/NAME, pod/NAME or binding/NAME.")
  String object;

  @Option(
      names = {"-n", "--namespace"},
      description = "The object's namespace; the context's namespace when absent.")
  String namespace;

  @Option(
      names = "--kubeconfig",
      description = "Kubeconfig file; $KUBECONFIG, ~/.kube/config or in-cluster when absent.")
  Path kubeconfig;

  @CommandLine.Spec CommandLine.Model.CommandSpec spec;

  @Override
  public Integer call() {
    PrintWriter err = spec.commandLine().getErr();
    String[] parts = object.split("/", -1);
    Optional<ObjectKind> kind =
        parts.length == 2 ? ObjectKind.of(parts[0]) : Optional.<ObjectKind>empty();
    if (kind.isEmpty() || parts[1].isEmpty()) {
      throw new CommandLine.ParameterException(
          spec.commandLine(), object + ": name the object as md/NAME, pod/NAME or binding/NAME");
    }
    String name = parts[1];
    try (KubernetesClient client = Clients.oneShot(kubeconfig)) {
      String ns =
          namespace != null
              ? namespace
              : Optional.ofNullable(client.getNamespace()).orElse("default");
      ClusterObjects read;
      try {
        read = read(client, ns);
      } catch (KubernetesClientException e) {
        err.println("kvcache explain: " + Clients.unreachable(client, e));
        return 2;
      }
      EngineRegistry engines = Engines.load(spec.commandLine());
      Optional<Explanation> explanation;
      try (PodProxyFetcher proxy = Clients.podProxy(client)) {
        explanation =
            new Explainer(
                    engines,
                    MemoryClusterView.of(read.objects()),
                    read.pods(),
                    read.bindings(),
                    new DtypeObserver(engines, proxy))
                .explain(kind.get(), ns, name);
      }
      if (explanation.isEmpty()) {
        err.println(
            "kvcache explain: "
                + kind.get().kind()
                + " "
                + ns
                + "/"
                + name
                + " not found (the namespace is -n, or the context's)");
        return 2;
      }
      PrintWriter out = spec.commandLine().getOut();
      new ExplanationText(out).print(explanation.get());
      out.flush();
      return 0;
    }
  }

  /** The namespace's Pods, every Binding, and all that the cluster view holds besides. */
  private record ClusterObjects(
      List<KVCachePoolBinding> bindings, List<Pod> pods, List<HasMetadata> objects) {}

  private static ClusterObjects read(KubernetesClient client, String ns) {
    List<KVCachePoolBinding> bindings =
        client.resources(KVCachePoolBinding.class).inAnyNamespace().list().getItems();
    List<Pod> pods = client.pods().inNamespace(ns).list().getItems();
    List<HasMetadata> objects = new ArrayList<>(bindings);
    objects.addAll(client.resources(KVCachePool.class).list().getItems());
    objects.addAll(client.resources(KVCacheBackend.class).list().getItems());
    objects.addAll(client.resources(ModelDeployment.class).inNamespace(ns).list().getItems());
    objects.addAll(pods);
    objects.addAll(
        client.resources(Setting.class).inNamespace(Settings.NAMESPACE).list().getItems());
    return new ClusterObjects(bindings, pods, objects);
  }
}
