package ai.gpustack.kvcache.attach;

import ai.gpustack.kvcache.resources.Keys;
import ai.gpustack.kvcache.spi.ClientConfigFile;
import io.fabric8.kubernetes.api.model.Volume;
import io.fabric8.kubernetes.api.model.VolumeBuilder;
import io.fabric8.kubernetes.api.model.VolumeMount;
import io.fabric8.kubernetes.api.model.VolumeMountBuilder;

/**
 * How an engine's store-client configuration file reaches its container, on both roads: the content
 * in the Pod annotation {@link Keys#CLIENT_CONFIG}, a downward-API volume that turns it into the
 * file, and a read-only mount of that volume in the engine's container.
 */
public final class ConfigVolume {
  /** The downward-API field the volume reads the file from. */
  public static final String FIELD = "metadata.annotations['" + Keys.CLIENT_CONFIG + "']";

  private ConfigVolume() {}

  /** The Pod volume holding {@code config} as a file. */
  public static Volume volume(ClientConfigFile config) {
    return new VolumeBuilder()
        .withName(ClientConfigFile.VOLUME)
        .withNewDownwardAPI()
        .addNewItem()
        .withPath(config.fileName())
        .withNewFieldRef()
        .withFieldPath(FIELD)
        .endFieldRef()
        .endItem()
        .endDownwardAPI()
        .build();
  }

  /** The engine container's mount of {@link #volume}. */
  public static VolumeMount mount(ClientConfigFile config) {
    return new VolumeMountBuilder()
        .withName(ClientConfigFile.VOLUME)
        .withMountPath(config.directory())
        .withReadOnly(true)
        .build();
  }
}
