package ai.gpustack.kvcache.sandbox;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import com.fasterxml.jackson.dataformat.yaml.YAMLFactory;
import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;

/**
 * The resources the sandbox serves: the built-ins the system touches and the CRDs (read from the
 * generated YAML, so discovery never drifts from them).
 */
final class ResourceCatalog {
  static final String[] CRDS = {
    "kvcachebackends.worker.gpustack.ai.yaml",
    "kvcachepools.worker.gpustack.ai.yaml",
    "kvcachepoolbindings.worker.gpustack.ai.yaml",
    "modeldeployments.worker.gpustack.ai.yaml",
    "settings.gpustack.ai.yaml"
  };
  private static final ObjectMapper YAML = new ObjectMapper(new YAMLFactory());
  private static final List<String> ALL_VERBS =
      List.of("create", "delete", "deletecollection", "get", "list", "patch", "update", "watch");

  /** One resource of one group version. */
  record Resource(
      String group,
      String version,
      String plural,
      String singular,
      String kind,
      boolean namespaced,
      List<String> shortNames,
      List<String> categories,
      boolean statusSubresource,
      List<JsonNode> printerColumns,
      Optional<JsonNode> schema) {
    /** Whether a CRD defines it. */
    boolean custom() {
      return schema.isPresent();
    }

    /** {@code v1}, {@code worker.gpustack.ai/v1}. */
    String apiVersion() {
      return group.isEmpty() ? version : group + "/" + version;
    }

    /** Whether it has the {@code scale} subresource, as the built-in workload kinds do. */
    boolean scalable() {
      return !custom() && SCALABLE.contains(kind);
    }
  }

  private static final Set<String> SCALABLE = Set.of("Deployment", "ReplicaSet", "StatefulSet");

  private final Map<String, Resource> byGroupPlural = new LinkedHashMap<>();
  private final List<JsonNode> crds = new ArrayList<>();

  ResourceCatalog() {
    builtin("", "v1", "pods", "Pod", true, List.of("po"), List.of("all"), true);
    builtin("", "v1", "namespaces", "Namespace", false, List.of("ns"), List.of(), true);
    builtin("", "v1", "events", "Event", true, List.of("ev"), List.of(), false);
    builtin("", "v1", "configmaps", "ConfigMap", true, List.of("cm"), List.of(), false);
    builtin("", "v1", "secrets", "Secret", true, List.of(), List.of(), false);
    builtin("", "v1", "services", "Service", true, List.of("svc"), List.of("all"), true);
    builtin("", "v1", "serviceaccounts", "ServiceAccount", true, List.of("sa"), List.of(), false);
    builtin(
        "apps", "v1", "deployments", "Deployment", true, List.of("deploy"), List.of("all"), true);
    builtin("apps", "v1", "replicasets", "ReplicaSet", true, List.of("rs"), List.of("all"), true);
    builtin(
        "apps", "v1", "statefulsets", "StatefulSet", true, List.of("sts"), List.of("all"), true);
    builtin("apps", "v1", "daemonsets", "DaemonSet", true, List.of("ds"), List.of("all"), true);
    builtin("batch", "v1", "jobs", "Job", true, List.of(), List.of("all"), true);
    builtin("batch", "v1", "cronjobs", "CronJob", true, List.of("cj"), List.of("all"), true);
    // "ev" is core events' alone: kubectl would warn that it matches both otherwise.
    builtin("events.k8s.io", "v1", "events", "Event", true, List.of(), List.of(), false);
    builtin("coordination.k8s.io", "v1", "leases", "Lease", true, List.of(), List.of(), false);
    builtin(
        "policy",
        "v1",
        "poddisruptionbudgets",
        "PodDisruptionBudget",
        true,
        List.of("pdb"),
        List.of(),
        true);
    builtin("rbac.authorization.k8s.io", "v1", "roles", "Role", true, List.of(), List.of(), false);
    builtin(
        "rbac.authorization.k8s.io",
        "v1",
        "rolebindings",
        "RoleBinding",
        true,
        List.of(),
        List.of(),
        false);
    builtin(
        "rbac.authorization.k8s.io",
        "v1",
        "clusterroles",
        "ClusterRole",
        false,
        List.of(),
        List.of(),
        false);
    builtin(
        "rbac.authorization.k8s.io",
        "v1",
        "clusterrolebindings",
        "ClusterRoleBinding",
        false,
        List.of(),
        List.of(),
        false);
    builtin(
        "apiextensions.k8s.io",
        "v1",
        "customresourcedefinitions",
        "CustomResourceDefinition",
        false,
        List.of("crd", "crds"),
        List.of(),
        true);
    builtin(
        "admissionregistration.k8s.io",
        "v1",
        "mutatingwebhookconfigurations",
        "MutatingWebhookConfiguration",
        false,
        List.of(),
        List.of(),
        false);
    builtin(
        "admissionregistration.k8s.io",
        "v1",
        "validatingwebhookconfigurations",
        "ValidatingWebhookConfiguration",
        false,
        List.of(),
        List.of(),
        false);
    // Stored, listed and applied as the shipped manifests name them; not enforced.
    builtin(
        "admissionregistration.k8s.io",
        "v1",
        "validatingadmissionpolicies",
        "ValidatingAdmissionPolicy",
        false,
        List.of(),
        List.of(),
        true);
    builtin(
        "admissionregistration.k8s.io",
        "v1",
        "validatingadmissionpolicybindings",
        "ValidatingAdmissionPolicyBinding",
        false,
        List.of(),
        List.of(),
        false);
    builtin(
        "networking.k8s.io",
        "v1",
        "networkpolicies",
        "NetworkPolicy",
        true,
        List.of("netpol"),
        List.of(),
        false);
    for (String file : CRDS) {
      JsonNode crd = read("/crds/" + file);
      crds.add(crd);
      JsonNode spec = crd.get("spec");
      JsonNode names = spec.get("names");
      for (JsonNode v : spec.get("versions")) {
        List<String> shortNames = new ArrayList<>();
        names.path("shortNames").forEach(n -> shortNames.add(n.asText()));
        List<String> categories = new ArrayList<>();
        names.path("categories").forEach(n -> categories.add(n.asText()));
        List<JsonNode> columns = new ArrayList<>();
        v.path("additionalPrinterColumns").forEach(columns::add);
        put(
            new Resource(
                spec.get("group").asText(),
                v.get("name").asText(),
                names.get("plural").asText(),
                names.get("singular").asText(),
                names.get("kind").asText(),
                spec.get("scope").asText().equals("Namespaced"),
                shortNames,
                categories,
                v.path("subresources").has("status"),
                columns,
                Optional.of(v.path("schema").path("openAPIV3Schema"))));
      }
    }
  }

  private void builtin(
      String group,
      String version,
      String plural,
      String kind,
      boolean namespaced,
      List<String> shortNames,
      List<String> categories,
      boolean status) {
    put(
        new Resource(
            group,
            version,
            plural,
            kind.toLowerCase(java.util.Locale.ROOT),
            kind,
            namespaced,
            shortNames,
            categories,
            status,
            List.of(),
            Optional.empty()));
  }

  private void put(Resource r) {
    byGroupPlural.put(r.group() + "/" + r.plural(), r);
  }

  private static JsonNode read(String resource) {
    try (InputStream in = ResourceCatalog.class.getResourceAsStream(resource)) {
      if (in == null) {
        throw new IllegalStateException("the jar holds no " + resource);
      }
      return YAML.readTree(in);
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  /** The CRDs as JSON, to install into the embedded server. */
  List<JsonNode> crds() {
    return crds;
  }

  Optional<Resource> find(String group, String plural) {
    return Optional.ofNullable(byGroupPlural.get(group + "/" + plural));
  }

  /** The resource serving {@code kind} in {@code group}. */
  Optional<Resource> byKind(String group, String kind) {
    return byGroupPlural.values().stream()
        .filter(r -> r.group().equals(group) && r.kind().equals(kind))
        .findFirst();
  }

  /** Every resource served, in discovery order. */
  List<Resource> all() {
    return List.copyOf(byGroupPlural.values());
  }

  /** {@code /api} */
  JsonNode apiVersions(String serverAddress) {
    ObjectNode n = YAML.createObjectNode().put("kind", "APIVersions");
    n.putArray("versions").add("v1");
    n.putArray("serverAddressByClientCIDRs")
        .addObject()
        .put("clientCIDR", "0.0.0.0/0")
        .put("serverAddress", serverAddress);
    return n;
  }

  /** {@code /apis} */
  JsonNode groups() {
    ObjectNode n = YAML.createObjectNode().put("kind", "APIGroupList").put("apiVersion", "v1");
    ArrayNode groups = n.putArray("groups");
    Map<String, List<String>> versions = new LinkedHashMap<>();
    byGroupPlural.values().stream()
        .filter(r -> !r.group().isEmpty())
        .forEach(r -> versions.computeIfAbsent(r.group(), g -> new ArrayList<>()).add(r.version()));
    versions.forEach(
        (group, vs) -> {
          ObjectNode g = groups.addObject().put("name", group);
          ArrayNode list = g.putArray("versions");
          vs.stream()
              .distinct()
              .forEach(
                  v -> list.addObject().put("groupVersion", group + "/" + v).put("version", v));
          g.putObject("preferredVersion")
              .put("groupVersion", group + "/" + vs.get(0))
              .put("version", vs.get(0));
        });
    return n;
  }

  /** {@code /api/v1} or {@code /apis/<group>/<version>}; empty when no such group version. */
  Optional<JsonNode> resources(String group, String version) {
    List<Resource> list =
        byGroupPlural.values().stream()
            .filter(r -> r.group().equals(group) && r.version().equals(version))
            .toList();
    if (list.isEmpty()) {
      return Optional.empty();
    }
    ObjectNode n =
        YAML.createObjectNode()
            .put("kind", "APIResourceList")
            .put("apiVersion", "v1")
            .put("groupVersion", group.isEmpty() ? version : group + "/" + version);
    ArrayNode resources = n.putArray("resources");
    for (Resource r : list) {
      ObjectNode o =
          resources
              .addObject()
              .put("name", r.plural())
              .put("singularName", r.singular())
              .put("namespaced", r.namespaced())
              .put("kind", r.kind());
      ArrayNode verbs = o.putArray("verbs");
      ALL_VERBS.forEach(verbs::add);
      if (!r.shortNames().isEmpty()) {
        r.shortNames().forEach(o.putArray("shortNames")::add);
      }
      if (!r.categories().isEmpty()) {
        r.categories().forEach(o.putArray("categories")::add);
      }
      if (r.statusSubresource()) {
        resources
            .addObject()
            .put("name", r.plural() + "/status")
            .put("singularName", "")
            .put("namespaced", r.namespaced())
            .put("kind", r.kind())
            .putArray("verbs")
            .add("get")
            .add("patch")
            .add("update");
      }
      if (r.scalable()) {
        resources
            .addObject()
            .put("name", r.plural() + "/scale")
            .put("singularName", "")
            .put("namespaced", r.namespaced())
            .put("group", "autoscaling")
            .put("version", "v1")
            .put("kind", "Scale")
            .putArray("verbs")
            .add("get")
            .add("patch")
            .add("update");
      }
    }
    return Optional.of(n);
  }
}
