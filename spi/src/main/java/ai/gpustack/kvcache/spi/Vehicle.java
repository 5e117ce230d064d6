package ai.gpustack.kvcache.spi;

/** How an engine gets attached to a cache. */
public enum Vehicle {
  /** The operator builds the role's Pods and folds every argument into the container's command. */
  OPERATOR_ROLE,
  /** The admission webhook appends to the target container's args of a Pod someone else built. */
  INJECTED_POD
}
