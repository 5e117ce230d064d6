package ai.gpustack.kvcache.operator.e2e;

import static org.assertj.core.api.Assertions.assertThat;

import ai.gpustack.kvcache.api.Settings;
import ai.gpustack.kvcache.operator.Shell;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import com.fasterxml.jackson.dataformat.yaml.YAMLFactory;
import com.fasterxml.jackson.dataformat.yaml.YAMLParser;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.MethodOrderer;
import org.junit.jupiter.api.Order;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestMethodOrder;

/**
 * The Helm chart as a platform team uses it, with the helm built from its Go module, on a control
 * plane of its own (the chart and the kustomize install would claim the same cluster-wide names):
 * {@code helm lint --strict}; {@code helm template} rendering the objects {@code kubectl kustomize}
 * renders for the same choices; values it refuses; {@code helm install} to a ready operator
 * Deployment and {@code helm uninstall} leaving nothing of it.
 */
@TestMethodOrder(MethodOrderer.OrderAnnotation.class)
class HelmE2E {
  private static final ObjectMapper YAML = new ObjectMapper(new YAMLFactory());
  private static final com.fasterxml.jackson.databind.ObjectWriter YAML_OUT =
      new ObjectMapper()
          .configure(
              com.fasterxml.jackson.databind.SerializationFeature.ORDER_MAP_ENTRIES_BY_KEYS, true)
          .writerWithDefaultPrettyPrinter();

  /** Labels Helm's conventions add; kustomize has no release to name. */
  private static final Set<String> CHART_LABELS =
      Set.of(
          "helm.sh/chart",
          "app.kubernetes.io/managed-by",
          "app.kubernetes.io/instance",
          "app.kubernetes.io/version");

  private static final Set<String> CLUSTER_SCOPED =
      Set.of(
          "ClusterRole",
          "ClusterRoleBinding",
          "MutatingWebhookConfiguration",
          "ValidatingWebhookConfiguration",
          "ValidatingAdmissionPolicy",
          "ValidatingAdmissionPolicyBinding",
          "CustomResourceDefinition",
          "Namespace");

  static String helm;
  static ControlPlane cluster;
  static Shell shell;

  @BeforeAll
  static void start() {
    helm = Helm.binary().toString();
    cluster = ControlPlane.start("kvcache-helm");
    shell = cluster.shell(ControlPlane.WORK.resolve("helm-home"));
  }

  @AfterAll
  static void stop() {
    if (cluster != null) {
      cluster.close();
    }
  }

  private static Shell.Run helm(String args) {
    return shell.sh(helm + " " + args);
  }

  @Test
  @Order(1)
  void the_chart_lints_strictly() {
    Shell.Run lint = helm("lint --strict " + Helm.CHART + " -n " + Settings.NAMESPACE).ok();
    assertThat(lint.out()).contains("1 chart(s) linted, 0 chart(s) failed");
  }

  @Test
  @Order(2)
  void the_chart_renders_the_kustomize_objects_for_the_same_choices() throws Exception {
    same("self-signed", template("--set networkPolicy.enabled=true"));
    same(
        "cert-manager",
        template("--set networkPolicy.enabled=true --set certificates.mode=cert-manager"));
  }

  /** The chart's objects are the overlay's, one by one. */
  private static void same(String overlay, String chart) throws Exception {
    Map<String, JsonNode> helm = objects(chart);
    Map<String, JsonNode> kustomize =
        objects(shell.kubectl("kustomize " + overlay(overlay)).ok().out());
    assertThat(helm.keySet()).as(overlay).isEqualTo(kustomize.keySet());
    for (Map.Entry<String, JsonNode> e : kustomize.entrySet()) {
      if (!e.getValue().equals(helm.get(e.getKey()))) {
        // Both whole, for a diff: the assertion's message cuts them short.
        Path dir = ControlPlane.WORK.resolve("helm-diff");
        java.nio.file.Files.createDirectories(dir);
        String file = e.getKey().replace('/', '_');
        java.nio.file.Files.writeString(
            dir.resolve(file + ".kustomize.json"), YAML_OUT.writeValueAsString(e.getValue()));
        java.nio.file.Files.writeString(
            dir.resolve(file + ".helm.json"), YAML_OUT.writeValueAsString(helm.get(e.getKey())));
      }
      assertThat(helm.get(e.getKey())).as("%s: %s", overlay, e.getKey()).isEqualTo(e.getValue());
    }
  }

  @Test
  @Order(3)
  void values_change_what_a_platform_team_expects() throws Exception {
    Map<String, JsonNode> o =
        objects(
            template(
                "--set image.digest=sha256:"
                    + "a".repeat(64)
                    + " --set replicas=3 --set priorityClassName=system-cluster-critical"
                    + " --set nodeSelector.pool=system --set podDisruptionBudget.enabled=false"
                    + " --set webhooks.pod-injection.failurePolicy=Ignore"
                    + " --set webhooks.pod-injection.timeoutSeconds=5"
                    + " --set certificates.mode=secret --set certificates.secret.name=tls"
                    + " --set certificates.secret.caBundle=Q0E="));
    JsonNode deployment = o.get("Deployment/kvcache-operator");
    JsonNode pod = deployment.at("/spec/template/spec");
    assertThat(deployment.at("/spec/replicas").asInt()).isEqualTo(3);
    assertThat(pod.at("/containers/0/image").asText()).endsWith("@sha256:" + "a".repeat(64));
    assertThat(pod.at("/priorityClassName").asText()).isEqualTo("system-cluster-critical");
    assertThat(pod.at("/nodeSelector/pool").asText()).isEqualTo("system");
    assertThat(pod.at("/containers/0/args").toString()).contains("--tls-cert=");
    assertThat(pod.at("/volumes").toString()).contains("\"secretName\":\"tls\"");
    assertThat(o).doesNotContainKey("PodDisruptionBudget/kvcache-operator");
    JsonNode injection =
        o.get("MutatingWebhookConfiguration/kvcache.gpustack.ai").at("/webhooks/0");
    assertThat(injection.at("/failurePolicy").asText()).isEqualTo("Ignore");
    assertThat(injection.at("/timeoutSeconds").asInt()).isEqualTo(5);
    assertThat(injection.at("/clientConfig/caBundle").asText()).isEqualTo("Q0E=");
  }

  @Test
  @Order(4)
  void values_it_cannot_honour_are_refused_naming_them() {
    Shell.Run mode =
        helm(
            "template kv "
                + Helm.CHART
                + " -n "
                + Settings.NAMESPACE
                + " --set certificates.mode=acme");
    assertThat(mode.exit()).isNotZero();
    assertThat(mode.err()).contains("/certificates/mode").contains("self-signed");
    Shell.Run elsewhere = helm("template kv " + Helm.CHART + " -n default");
    assertThat(elsewhere.exit()).isNotZero();
    assertThat(elsewhere.err())
        .contains("install the chart into namespace " + Settings.NAMESPACE)
        .contains("release namespace is default");
    Shell.Run secret =
        helm(
            "template kv "
                + Helm.CHART
                + " -n "
                + Settings.NAMESPACE
                + " --set certificates.mode=secret");
    assertThat(secret.err()).contains("certificates.secret.name");
    Shell.Run typo =
        helm("template kv " + Helm.CHART + " -n " + Settings.NAMESPACE + " --set replica=3");
    assertThat(typo.exit()).as("the schema refuses unknown values").isNotZero();
    assertThat(typo.err()).contains("replica");
  }

  @Test
  @Order(5)
  void install_reaches_a_ready_operator_and_uninstall_leaves_nothing_of_it() {
    long start = System.nanoTime();
    helm("install kvcache-operator "
            + Helm.CHART
            + " -n "
            + Settings.NAMESPACE
            + " --create-namespace --timeout 80s --wait")
        .ok();
    assertThat(
            shell
                .until(
                    "kubectl get deployment kvcache-operator -n "
                        + Settings.NAMESPACE
                        + " -o jsonpath={.status.readyReplicas}",
                    r -> r.out().equals("2"),
                    Duration.ofSeconds(60))
                .out())
        .isEqualTo("2");
    // A figure for the notes, not a target: KWOK turns Pods Ready without running them.
    System.out.printf("helm install to Ready: %d ms%n", (System.nanoTime() - start) / 1_000_000);
    assertThat(shell.kubectl("get crd kvcachepoolbindings.worker.gpustack.ai").exit()).isZero();
    assertThat(helm("list -n " + Settings.NAMESPACE).ok().out()).contains("kvcache-operator");
    helm("uninstall kvcache-operator -n " + Settings.NAMESPACE + " --wait --timeout 80s").ok();
    assertThat(shell.kubectl("get deployment kvcache-operator -n " + Settings.NAMESPACE).exit())
        .isNotZero();
    assertThat(shell.kubectl("get mutatingwebhookconfiguration kvcache.gpustack.ai").exit())
        .as("no webhook left to refuse Pods")
        .isNotZero();
    assertThat(shell.kubectl("get crd kvcachepoolbindings.worker.gpustack.ai").exit())
        .as("Helm keeps CRDs, and with them every stored object")
        .isZero();
  }

  private static String overlay(String name) {
    return Helm.CHART.getParent().getParent().resolve("kustomize").resolve(name).toString();
  }

  private static String template(String values) {
    return helm("template kvcache-operator "
            + Helm.CHART
            + " -n "
            + Settings.NAMESPACE
            + " --include-crds "
            + values)
        .ok()
        .out();
  }

  /**
   * Each object by kind and name, with what only one of the tools writes taken out: Helm's release
   * labels, the namespace kustomize also sets on cluster-scoped objects (the API server drops it),
   * the Namespace object (Helm's --create-namespace makes it), the order of named list items, and
   * whole numbers written with a fraction.
   */
  static Map<String, JsonNode> objects(String yaml) throws Exception {
    Map<String, JsonNode> out = new TreeMap<>();
    try (YAMLParser parser = new YAMLFactory().createParser(yaml)) {
      for (JsonNode doc : YAML.readValues(parser, JsonNode.class).readAll()) {
        if (doc == null || doc.isMissingNode() || doc.isEmpty()) {
          continue;
        }
        String kind = doc.path("kind").asText();
        if (kind.equals("Namespace")) {
          continue;
        }
        ObjectNode metadata = (ObjectNode) doc.get("metadata");
        if (metadata.get("labels") instanceof ObjectNode labels) {
          labels.remove(CHART_LABELS);
          if (labels.isEmpty()) {
            metadata.remove("labels");
          }
        }
        if (CLUSTER_SCOPED.contains(kind)) {
          metadata.remove("namespace");
        }
        out.put(kind + "/" + metadata.path("name").asText(), sorted(doc));
      }
    }
    return out;
  }

  private static JsonNode sorted(JsonNode node) {
    if (node.isNumber() && node.canConvertToExactIntegral()) {
      // kustomize writes the CRD's minimum: 1.0 as 1; the API server stores either as 1.
      return com.fasterxml.jackson.databind.node.LongNode.valueOf(node.longValue());
    }
    if (node instanceof ObjectNode object) {
      object.fieldNames().forEachRemaining(f -> object.set(f, sorted(object.get(f))));
      return object;
    }
    if (node instanceof ArrayNode array) {
      List<JsonNode> items = new ArrayList<>();
      array.forEach(i -> items.add(sorted(i)));
      if (items.stream().allMatch(i -> i.has("name") && i.get("name").isTextual())) {
        items.sort(Comparator.comparing(i -> i.get("name").asText()));
      }
      array.removeAll();
      items.forEach(array::add);
    }
    return node;
  }
}
