package ai.gpustack.kvcache.operator.e2e;

import ai.gpustack.kvcache.operator.Shell;
import ai.gpustack.kvcache.resources.KvCacheSerialization;
import io.fabric8.kubernetes.client.Config;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.KubernetesClientBuilder;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.extension.ExtensionContext;

/**
 * The real control plane of {@code tools/control-plane}, one per test run: started by {@code up.sh}
 * the first time a suite asks for it, stopped by {@code down.sh} when the run ends. There is no
 * other starter: what a person runs is what the tests run. Where it cannot start (no Go to build
 * it, say) the suite fails with {@code up.sh}'s own last line; it never passes without it.
 */
public final class ControlPlane implements AutoCloseable {
  static final Path WORK = Path.of("target", "e2e").toAbsolutePath();

  private final String name;
  private final Path kubeconfig;
  private final KubernetesClient admin;

  private ControlPlane(String name, Path kubeconfig) {
    this.name = name;
    this.kubeconfig = kubeconfig;
    this.admin = client(kubeconfig);
  }

  /** The run's cluster, started on first use. */
  public static ControlPlane shared(ExtensionContext context) {
    return context
        .getRoot()
        .getStore(ExtensionContext.Namespace.GLOBAL)
        .computeIfAbsent(ControlPlane.class, k -> start("kvcache-e2e"), ControlPlane.class);
  }

  /**
   * Starts cluster {@code name} with {@code up.sh}, {@code kwokctlFlags} passed on to {@code
   * kwokctl create cluster}; fails with its last line if it cannot.
   */
  public static ControlPlane start(String name, String... kwokctlFlags) {
    script("down.sh", name); // one an interrupted run left behind
    List<String> lines = script("up.sh", name, kwokctlFlags);
    String last = lines.isEmpty() ? "" : lines.get(lines.size() - 1);
    if (!last.startsWith("kubeconfig: ")) {
      throw new IllegalStateException(
          "tools/control-plane/up.sh did not start the control plane: " + last);
    }
    return new ControlPlane(name, Path.of(last.substring("kubeconfig: ".length())));
  }

  /** Runs one of the scripts, its output kept under target/e2e; returns its lines. */
  private static List<String> script(String script, String name, String... more) {
    List<String> args = new ArrayList<>(List.of("--name", name));
    if (more.length > 0) {
      args.add("--");
      args.addAll(List.of(more));
    }
    return BuildScript.run(
            "control-plane/" + script,
            name + "-" + script.replace(".sh", "") + ".log",
            args.toArray(String[]::new))
        .stream()
        .filter(l -> !l.startsWith("{\"time\""))
        .toList();
  }

  static KubernetesClient client(Path kubeconfig) {
    try {
      return new KubernetesClientBuilder()
          .withConfig(Config.fromKubeconfig(Files.readString(kubeconfig)))
          .withKubernetesSerialization(KvCacheSerialization.create())
          .build();
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  public String name() {
    return name;
  }

  public Path kubeconfig() {
    return kubeconfig;
  }

  /** The process id of {@code component} ({@code kube-apiserver}, {@code etcd}, ...). */
  public long pid(String component) {
    try {
      return Long.parseLong(
          Files.readString(kubeconfig.resolveSibling("pids").resolve(component + ".pid")).strip());
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  /** Where kube-apiserver writes its audit log, when started with an audit policy. */
  public Path auditLog() {
    return kubeconfig.resolveSibling("logs").resolve("audit.log");
  }

  /** A client with the cluster administrator's certificate. */
  public KubernetesClient admin() {
    return admin;
  }

  /** The administrator's kubectl, with {@code home} as its HOME. */
  public Shell shell(Path home) {
    try {
      Files.createDirectories(home);
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
    return new Shell(kubeconfig, home);
  }

  @Override
  public void close() {
    admin.close();
    script("down.sh", name);
  }
}
