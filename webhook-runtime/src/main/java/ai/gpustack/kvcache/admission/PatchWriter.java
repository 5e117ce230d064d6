package ai.gpustack.kvcache.admission;

import com.fasterxml.jackson.core.JsonFactory;
import com.fasterxml.jackson.core.JsonGenerator;
import com.fasterxml.jackson.core.util.ByteArrayBuilder;
import com.fasterxml.jackson.databind.JsonNode;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.util.List;

/**
 * Writes the {@code add} operations of a JSON Patch straight to bytes. Injection answers every
 * admitted Pod with one; building a tree of it only to serialize it cost more than the writing.
 */
final class PatchWriter {
  private static final JsonFactory FACTORY = new JsonFactory();

  /** One JSON value, written in place. */
  @FunctionalInterface
  interface Value {
    void write(JsonGenerator json) throws IOException;

    static Value string(String s) {
      return json -> json.writeString(s);
    }

    /** {@code json}, already serialized, written as it is. */
    static Value raw(String json) {
      return out -> out.writeRawValue(json);
    }
  }

  // Jackson's per-thread buffers back both, as ObjectMapper#writeValueAsBytes does.
  private final ByteArrayBuilder out = new ByteArrayBuilder(FACTORY._getBufferRecycler());
  private final JsonGenerator json;

  PatchWriter() {
    try {
      json = FACTORY.createGenerator(out);
      json.writeStartArray();
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  /** {@code {"op":"add","path":path,"value":value}}. */
  PatchWriter add(String path, Value value) {
    try {
      json.writeStartObject();
      json.writeStringField("op", "add");
      json.writeStringField("path", path);
      json.writeFieldName("value");
      value.write(json);
      json.writeEndObject();
      return this;
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  /**
   * Appends {@code values} to the array {@code existing} found at {@code path}, one operation each,
   * or adds the array when there is none; nothing when {@code values} is empty.
   */
  PatchWriter append(JsonNode existing, String path, List<Value> values) {
    if (values.isEmpty()) {
      return this;
    }
    if (existing.isArray()) {
      values.forEach(v -> add(path + "/-", v));
      return this;
    }
    return add(
        path,
        json -> {
          json.writeStartArray();
          for (Value v : values) {
            v.write(json);
          }
          json.writeEndArray();
        });
  }

  /** The patch; the writer is spent. */
  Patch finish() {
    try {
      json.writeEndArray();
      json.close();
      return new Patch(out.toByteArray());
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    } finally {
      out.release();
    }
  }
}
