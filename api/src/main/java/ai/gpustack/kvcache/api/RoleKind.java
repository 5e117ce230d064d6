package ai.gpustack.kvcache.api;

/** What a role of a ModelDeployment serves: whole requests, or one half of a disaggregated pair. */
public enum RoleKind {
  Server,
  Prefill,
  Decode
}
