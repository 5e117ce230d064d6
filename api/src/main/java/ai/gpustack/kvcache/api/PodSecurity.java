package ai.gpustack.kvcache.api;

/**
 * The Pod Security Standard the operator's Pods are rendered to meet: {@code restricted} (the
 * default) runs them as non-root with no privilege escalation, every capability dropped and the
 * runtime's default seccomp profile; {@code baseline} keeps all of that but running as non-root,
 * for engine images that must run as root.
 */
public enum PodSecurity {
  restricted,
  baseline
}
