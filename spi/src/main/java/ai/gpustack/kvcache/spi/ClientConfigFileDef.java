package ai.gpustack.kvcache.spi;

import org.immutables.value.Value;

/**
 * A store-client configuration file the engine reads. The runtimes carry its content in the Pod
 * annotation {@value #ANNOTATION} and mount it read-only through the downward API.
 */
@Value.Immutable
abstract class ClientConfigFileDef {
  /** The Pod annotation that carries the file's content. */
  public static final String ANNOTATION = "kvcache.gpustack.ai/client-config";

  /** The volume that mounts it. */
  public static final String VOLUME = "gpustack-kvcache-config";

  public abstract String directory();

  public abstract String fileName();

  public abstract String content();

  public String path() {
    return directory() + "/" + fileName();
  }
}
