package ai.gpustack.kvcache.attach;

import ai.gpustack.kvcache.resources.Keys;

/**
 * Where a workload names the Binding it attaches through: the workload's namespace, the Binding's
 * name, and the field that holds the name, which a refusal points at ({@link #DEPLOYMENT_FIELD},
 * {@link #POD_FIELD}).
 */
public record BindingRef(String namespace, String name, String field) {
  /** Where a ModelDeployment names its Binding. */
  public static final String DEPLOYMENT_FIELD = "spec.kvCache.poolRef.name";

  /** Where a Pod opting into injection names its Binding. */
  public static final String POD_FIELD = "metadata.annotations[" + Keys.BINDING + "]";

  /** A ModelDeployment's Binding. */
  public static BindingRef deployment(String namespace, String name) {
    return new BindingRef(namespace, name, DEPLOYMENT_FIELD);
  }

  /** An injected Pod's Binding. */
  public static BindingRef pod(String namespace, String name) {
    return new BindingRef(namespace, name, POD_FIELD);
  }
}
