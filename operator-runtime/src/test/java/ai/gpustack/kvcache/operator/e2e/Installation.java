package ai.gpustack.kvcache.operator.e2e;

import static org.assertj.core.api.Assertions.assertThat;

import ai.gpustack.kvcache.operator.Shell;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import com.fasterxml.jackson.dataformat.yaml.YAMLFactory;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.extension.ExtensionContext;

/**
 * The operator installed on the real control plane as a platform team installs it: {@code
 * deploy/crds} and {@code deploy/kustomize/self-signed} applied with kubectl exactly as shipped but
 * for one rewrite, each webhook's {@code clientConfig.service} turned into {@code url:
 * https://127.0.0.1:<port>/<path>} (no cluster network reaches a Service here; envtest does the
 * same); and {@code kvcache run} as its own process holding only a token of the shipped
 * ServiceAccount, so the shipped ClusterRole and Role alone authorize it. The shipped operator
 * Deployment is applied too; KWOK runs its Pods as it runs every Pod, without containers.
 */
public final class Installation implements AutoCloseable {
  static final Path REPO = Path.of("..").toAbsolutePath().normalize();
  static final String SYSTEM = "gpustack-system";

  private final ControlPlane cluster;
  private final Shell admin;
  private final Path dir;
  private final int webhookPort = OperatorProcess.freePort();
  private final Shell.Run crds;
  private final Shell.Run install;
  private final Path operatorKubeconfig;
  private OperatorProcess operator;
  private int starts;

  private Installation(ControlPlane cluster) {
    this.cluster = cluster;
    this.dir = ControlPlane.WORK.resolve("install");
    this.admin = cluster.shell(dir);
    crds = admin.kubectl("apply -k " + REPO.resolve("deploy/crds")).ok();
    crdsEstablished(admin);
    install = apply("deploy/kustomize/self-signed");
    operatorKubeconfig = serviceAccountKubeconfig(admin, dir.resolve("operator.kubeconfig"));
    operator = startOperator();
  }

  /** Waits until the API server serves the five CRDs. */
  public static void crdsEstablished(Shell admin) {
    admin
        .kubectl(
            "wait --for=condition=Established --timeout=60s"
                + " crd/modeldeployments.worker.gpustack.ai crd/kvcachepoolbindings.worker.gpustack.ai"
                + " crd/kvcachepools.worker.gpustack.ai crd/kvcachebackends.worker.gpustack.ai"
                + " crd/settings.gpustack.ai")
        .ok();
  }

  /** The operator installed on {@code cluster}, a cluster of the caller's own. */
  public static Installation on(ControlPlane cluster) {
    return new Installation(cluster);
  }

  /** The run's installation, made on first use. */
  public static Installation shared(ExtensionContext context) {
    ControlPlane cluster = ControlPlane.shared(context);
    return context
        .getRoot()
        .getStore(ExtensionContext.Namespace.GLOBAL)
        .computeIfAbsent(Installation.class, k -> new Installation(cluster), Installation.class);
  }

  public ControlPlane cluster() {
    return cluster;
  }

  /** What {@code kubectl apply -k deploy/crds} printed. */
  public Shell.Run crds() {
    return crds;
  }

  /** What applying {@code deploy/kustomize/self-signed} printed. */
  public Shell.Run install() {
    return install;
  }

  /** The administrator's kubectl, with a HOME of the suite's own under target/e2e. */
  public Shell admin(String suite) {
    return cluster.shell(ControlPlane.WORK.resolve(suite));
  }

  public OperatorProcess operator() {
    return operator;
  }

  public int webhookPort() {
    return webhookPort;
  }

  /**
   * {@code kubectl kustomize <overlay>} with the one rewrite, applied with {@code kubectl apply}:
   * what applying the overlay does on a cluster whose API server reaches the webhook's Service.
   */
  public Shell.Run apply(String overlay) {
    return apply(admin, REPO.resolve(overlay), webhookPort, overlay.replace('/', '-') + ".yaml");
  }

  /**
   * {@link #apply(String)} for any overlay (another release's), with {@code admin}'s kubectl, the
   * rewritten manifests kept in {@code name} in its home.
   */
  static Shell.Run apply(Shell admin, Path overlay, int webhookPort, String name) {
    String manifests = admin.kubectl("kustomize " + overlay).ok().out();
    Path file = admin.home().resolve(name);
    try {
      Files.writeString(file, rewriteWebhooks(manifests, webhookPort));
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
    return admin.kubectl("apply -f " + file).ok();
  }

  /** The kubeconfig the operator runs with: the server, its CA and a ServiceAccount token. */
  public Path operatorKubeconfig() {
    return operatorKubeconfig;
  }

  /** Stops the operator and its webhook, as a node losing it would. */
  public void stopOperator() {
    operator.close();
  }

  /** Starts it again (after {@link #stopOperator}), with {@code more} run flags. */
  public OperatorProcess startOperator(String... more) {
    starts++;
    operator =
        OperatorProcess.start(
            operatorKubeconfig,
            webhookPort,
            "e2e-" + starts,
            dir.resolve("operator-" + starts + ".log"),
            more);
    return operator;
  }

  /**
   * The one rewrite: each webhook's {@code clientConfig.service} becomes a {@code url} on loopback
   * with the same path; its {@code caBundle}, if any, stays.
   */
  static String rewriteWebhooks(String manifests, int port) {
    ObjectMapper yaml = new ObjectMapper(new YAMLFactory());
    try {
      List<JsonNode> docs =
          yaml.readerFor(JsonNode.class).<JsonNode>readValues(manifests).readAll();
      StringBuilder out = new StringBuilder();
      for (JsonNode doc : docs) {
        if (doc == null || doc.isEmpty()) {
          continue;
        }
        if (doc.path("kind").asText().endsWith("WebhookConfiguration")) {
          for (JsonNode webhook : doc.path("webhooks")) {
            ObjectNode clientConfig = (ObjectNode) webhook.get("clientConfig");
            JsonNode service = clientConfig.remove("service");
            clientConfig.put("url", "https://127.0.0.1:" + port + service.path("path").asText("/"));
          }
        }
        out.append("---\n").append(yaml.writeValueAsString(doc).replaceFirst("^---\n", ""));
      }
      return out.toString();
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  /**
   * A kubeconfig holding a token of the shipped ServiceAccount, as {@code kubectl create token}
   * makes one, written to {@code file}.
   */
  static Path serviceAccountKubeconfig(Shell admin, Path file) {
    String token =
        admin.kubectl("create token kvcache-operator -n " + SYSTEM + " --duration=24h").ok().out();
    String server =
        admin
            .kubectl("config view --raw --minify -o jsonpath={.clusters[0].cluster.server}")
            .ok()
            .out();
    String ca =
        admin
            .kubectl(
                "config view --raw --minify"
                    + " -o jsonpath={.clusters[0].cluster.certificate-authority}")
            .ok()
            .out();
    assertThat(token).isNotBlank();
    try {
      Files.createDirectories(file.getParent());
      return Files.writeString(
          file,
          """
          apiVersion: v1
          kind: Config
          clusters: [{name: e2e, cluster: {server: "%s", certificate-authority: "%s"}}]
          users: [{name: kvcache-operator, user: {token: "%s"}}]
          contexts: [{name: e2e, context: {cluster: e2e, user: kvcache-operator, namespace: %s}}]
          current-context: e2e
          """
              .formatted(server, ca, token.strip(), SYSTEM));
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  @Override
  public void close() {
    operator.close();
  }
}
