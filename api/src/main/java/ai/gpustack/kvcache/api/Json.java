package ai.gpustack.kvcache.api;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.SerializationFeature;
import com.fasterxml.jackson.datatype.jdk8.Jdk8Module;

/** The one Jackson configuration every value here reads and writes with. */
public final class Json {
  private Json() {}

  /**
   * A new mapper that handles {@link java.util.Optional} and writes map keys sorted, so output is
   * deterministic.
   */
  public static ObjectMapper newMapper() {
    return new ObjectMapper()
        .registerModule(new Jdk8Module())
        .configure(SerializationFeature.ORDER_MAP_ENTRIES_BY_KEYS, true);
  }
}
