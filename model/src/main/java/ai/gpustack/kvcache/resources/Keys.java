package ai.gpustack.kvcache.resources;

/** The labels, annotations and finalizers this system reads and writes. */
public final class Keys {
  /** The prefix of every injection key; unknown keys under it are refused. */
  public static final String INJECTION_PREFIX = "kvcache.gpustack.ai/";

  /** Label opting a Pod into injection; only {@code "true"} opts in. */
  public static final String INJECT = INJECTION_PREFIX + "inject";

  /** Annotation: the Binding, in the Pod's namespace. */
  public static final String BINDING = INJECTION_PREFIX + "binding";

  /** Annotation: the engine id; never guessed from the image. */
  public static final String ENGINE = INJECTION_PREFIX + "engine";

  /** Annotation: the engine version that selects its spelling table; newest when absent. */
  public static final String ENGINE_VERSION = INJECTION_PREFIX + "engine-version";

  /** Annotation: the target container; required with more than one container. */
  public static final String CONTAINER = INJECTION_PREFIX + "container";

  /**
   * Annotation: {@code "true"} vouches that a launcher the webhook cannot identify forwards args.
   */
  public static final String LAUNCH_ARGS_FORWARDED = INJECTION_PREFIX + "launch-args-forwarded";

  /** Annotation written by the webhook: the injection record (JSON). */
  public static final String INJECTED = INJECTION_PREFIX + "injected";

  /** Annotation written by the webhook: the store-client configuration file's content. */
  public static final String CLIENT_CONFIG = INJECTION_PREFIX + "client-config";

  /** Labels of operator-built replicas. */
  public static final String INSTANCE = "app.kubernetes.io/instance";

  public static final String COMPONENT = "app.kubernetes.io/component";
  public static final String MANAGED_BY = "app.kubernetes.io/managed-by";
  public static final String POD_ORDINAL = "modeldeployment.gpustack.ai/pod-ordinal";
  public static final String POD_SPEC_HASH = "modeldeployment.gpustack.ai/pod-spec-hash";

  /** Finalizers. */
  public static final String BINDING_FINALIZER = "worker.gpustack.ai/kv-cache-pool-binding";

  public static final String DEPLOYMENT_FINALIZER = "worker.gpustack.ai/model-deployment";

  private Keys() {}
}
