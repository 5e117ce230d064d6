package ai.gpustack.kvcache.sandbox;

import java.util.Optional;

/**
 * A request path of the Kubernetes API, split into its parts: {@code
 * /apis/worker.gpustack.ai/v1/namespaces/team-a/modeldeployments/chat/status}.
 */
record ApiPath(
    String group,
    String version,
    Optional<String> namespace,
    String plural,
    Optional<String> name,
    Optional<String> subresource) {
  /** The parts of {@code path} (query removed), or empty when it names no resource. */
  static Optional<ApiPath> parse(String path) {
    String p = path.contains("?") ? path.substring(0, path.indexOf('?')) : path;
    String[] s = p.replaceAll("^/+|/+$", "").split("/");
    int i;
    String group;
    String version;
    if (s.length >= 3 && s[0].equals("api")) {
      group = "";
      version = s[1];
      i = 2;
    } else if (s.length >= 4 && s[0].equals("apis")) {
      group = s[1];
      version = s[2];
      i = 3;
    } else {
      return Optional.empty();
    }
    Optional<String> namespace = Optional.empty();
    if (s.length > i + 1 && s[i].equals("namespaces") && s.length > i + 2) {
      namespace = Optional.of(s[i + 1]);
      i += 2;
    }
    String plural = s[i];
    Optional<String> name = s.length > i + 1 ? Optional.of(s[i + 1]) : Optional.empty();
    Optional<String> sub = s.length > i + 2 ? Optional.of(s[i + 2]) : Optional.empty();
    return Optional.of(new ApiPath(group, version, namespace, plural, name, sub));
  }

  String groupVersion() {
    return group.isEmpty() ? version : group + "/" + version;
  }
}
