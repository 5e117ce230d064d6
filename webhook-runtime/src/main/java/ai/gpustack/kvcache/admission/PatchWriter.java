package ai.gpustack.kvcache.admission;

import com.fasterxml.jackson.core.JsonFactory;
import com.fasterxml.jackson.core.io.JsonStringEncoder;
import com.fasterxml.jackson.core.util.ByteArrayBuilder;
import com.fasterxml.jackson.databind.JsonNode;
import java.nio.charset.StandardCharsets;
import java.util.List;

/**
 * Writes the {@code add} operations of a JSON Patch straight to UTF-8 bytes. Injection answers
 * every admitted Pod with one, mostly from parts serialized once per attachment ({@link
 * Value#raw}), so writing is copying bytes; a generator re-encoding them per Pod cost more than the
 * rule's checks.
 */
final class PatchWriter {
  private static final JsonStringEncoder STRINGS = JsonStringEncoder.getInstance();
  private static final byte[] OP_ADD = ascii("{\"op\":\"add\",\"path\":\"");
  private static final byte[] VALUE = ascii("\",\"value\":");

  /** One JSON value as bytes; immutable, so one made once serves every Pod. */
  static final class Value {
    private final byte[] json;

    private Value(byte[] json) {
      this.json = json;
    }

    /** A JSON string. */
    static Value string(String s) {
      byte[] quoted = STRINGS.quoteAsUTF8(s);
      byte[] json = new byte[quoted.length + 2];
      json[0] = '"';
      System.arraycopy(quoted, 0, json, 1, quoted.length);
      json[json.length - 1] = '"';
      return new Value(json);
    }

    /** {@code json}, already serialized, written as it is. */
    static Value raw(String json) {
      return new Value(json.getBytes(StandardCharsets.UTF_8));
    }

    /** An array of {@code values}. */
    static Value array(List<Value> values) {
      ByteArrayBuilder out = new ByteArrayBuilder(256);
      out.append('[');
      for (int i = 0; i < values.size(); i++) {
        if (i > 0) {
          out.append(',');
        }
        out.write(values.get(i).json);
      }
      out.append(']');
      return new Value(out.toByteArray());
    }
  }

  private static final JsonFactory FACTORY = new JsonFactory();

  // Jackson's per-thread buffer backs it, as ObjectMapper#writeValueAsBytes does.
  private final ByteArrayBuilder out = new ByteArrayBuilder(FACTORY._getBufferRecycler());
  private boolean empty = true;

  PatchWriter() {
    out.append('[');
  }

  /** {@code {"op":"add","path":path,"value":value}}. */
  PatchWriter add(String path, Value value) {
    separate();
    writeAdd(out, path, value);
    return this;
  }

  /** The operation {@link #add} writes, serialized once for {@link #operation}. */
  static Value addOperation(String path, Value value) {
    ByteArrayBuilder operation = new ByteArrayBuilder(256);
    writeAdd(operation, path, value);
    return new Value(operation.toByteArray());
  }

  /** An operation from {@link #addOperation}, written as it is. */
  PatchWriter operation(Value operation) {
    separate();
    out.write(operation.json);
    return this;
  }

  private static void writeAdd(ByteArrayBuilder out, String path, Value value) {
    out.write(OP_ADD);
    out.write(STRINGS.quoteAsUTF8(path));
    out.write(VALUE);
    out.write(value.json);
    out.append('}');
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
    return add(path, Value.array(values));
  }

  /** The patch; the writer is spent. */
  Patch finish() {
    out.append(']');
    try {
      return new Patch(out.toByteArray());
    } finally {
      out.release();
    }
  }

  private void separate() {
    if (!empty) {
      out.append(',');
    }
    empty = false;
  }

  private static byte[] ascii(String s) {
    return s.getBytes(StandardCharsets.US_ASCII);
  }
}
