package ai.gpustack.kvcache.admission;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;

/**
 * A JSON Patch (RFC 6902) as the bytes an AdmissionReview answer carries. Injection writes it once,
 * straight to bytes; {@link #operations()} reads it back for whoever applies it offline.
 */
public final class Patch {
  private static final ObjectMapper JSON = new ObjectMapper();

  private final byte[] json;

  Patch(byte[] json) {
    this.json = json;
  }

  /** The operations, as a JSON array. */
  public JsonNode operations() {
    try {
      return JSON.readTree(json);
    } catch (IOException e) {
      throw new UncheckedIOException("a patch this package wrote does not read back", e);
    }
  }

  /** The serialized patch; shared, not copied: callers in this package only read it. */
  byte[] json() {
    return json;
  }

  @Override
  public String toString() {
    return new String(json, StandardCharsets.UTF_8);
  }
}
