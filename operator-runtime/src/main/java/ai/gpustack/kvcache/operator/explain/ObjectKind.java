package ai.gpustack.kvcache.operator.explain;

import java.util.Locale;
import java.util.Optional;

/** The kinds {@code kvcache explain} explains, and the words naming them in {@code KIND/NAME}. */
public enum ObjectKind {
  DEPLOYMENT("ModelDeployment"),
  POD("Pod"),
  BINDING("KVCachePoolBinding");

  private final String kind;

  ObjectKind(String kind) {
    this.kind = kind;
  }

  /** The Kubernetes kind: {@code ModelDeployment}. */
  public String kind() {
    return kind;
  }

  /** {@code md}, {@code pod} or {@code binding}, their long forms and kubectl's short names. */
  public static Optional<ObjectKind> of(String word) {
    return switch (word.toLowerCase(Locale.ROOT)) {
      case "md", "modeldeployment", "modeldeployments" -> Optional.of(DEPLOYMENT);
      case "pod", "pods", "po" -> Optional.of(POD);
      case "binding", "kvcpb", "kvcachepoolbinding", "kvcachepoolbindings" -> Optional.of(BINDING);
      default -> Optional.empty();
    };
  }
}
