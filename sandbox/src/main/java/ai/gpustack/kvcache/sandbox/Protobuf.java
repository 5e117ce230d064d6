package ai.gpustack.kvcache.sandbox;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.time.Instant;
import java.time.temporal.ChronoUnit;
import java.util.Base64;

/**
 * Kubernetes protobuf bodies read as JSON. kubectl's typed clients ({@code kubectl create
 * configmap}, {@code secret}, {@code deployment}, {@code namespace}, {@code auth can-i}, ...) send
 * built-in objects only as protobuf and never fall back to JSON, so the sandbox reads them with the
 * field numbers of {@code k8s.io/api}'s generated.proto (resource {@code protobuf/kubernetes.json},
 * written by {@code sandbox/src/build/protobuf-schema.py}). A field it does not know is refused,
 * not dropped.
 */
final class Protobuf {
  static final String CONTENT_TYPE = "application/vnd.kubernetes.protobuf";
  private static final byte[] MAGIC = {'k', '8', 's', 0};
  private static final JsonNodeFactory NODES = JsonNodeFactory.instance;
  private static final String META = "k8s.io.apimachinery.pkg.apis.meta.v1.";
  private static final JsonNode SCHEMA = load();

  /** A body the sandbox cannot read, with what it could not. */
  static final class Unreadable extends Exception {
    private static final long serialVersionUID = 1L;

    Unreadable(String message) {
      super(message);
    }
  }

  private Protobuf() {}

  static boolean is(String contentType) {
    return contentType.startsWith(CONTENT_TYPE);
  }

  /** The object in {@code body} (the {@code k8s\0} envelope around a runtime.Unknown) as JSON. */
  static ObjectNode decode(byte[] body) throws Unreadable {
    for (int i = 0; i < MAGIC.length; i++) {
      if (body.length <= i || body[i] != MAGIC[i]) {
        throw new Unreadable("the body is not Kubernetes protobuf: it lacks the k8s\\0 prefix");
      }
    }
    Reader unknown = new Reader(body, MAGIC.length, body.length);
    String apiVersion = "";
    String kind = "";
    Reader raw = null;
    while (unknown.more()) {
      long key = unknown.varint();
      int field = (int) (key >>> 3);
      if (field == 1) {
        Reader typeMeta = unknown.embedded();
        while (typeMeta.more()) {
          int f = (int) (typeMeta.varint() >>> 3);
          String text = typeMeta.embedded().text();
          if (f == 1) {
            apiVersion = text;
          } else if (f == 2) {
            kind = text;
          }
        }
      } else if (field == 2) {
        raw = unknown.embedded();
      } else {
        unknown.skip((int) (key & 7));
      }
    }
    JsonNode message = SCHEMA.path("kinds").path(apiVersion + "/" + kind);
    if (message.isMissingNode() || raw == null) {
      throw new Unreadable(
          "the sandbox reads no protobuf "
              + kind
              + " of "
              + apiVersion
              + "; send it as JSON (kubectl create -f FILE)");
    }
    ObjectNode object = NODES.objectNode().put("apiVersion", apiVersion).put("kind", kind);
    object.setAll((ObjectNode) message(message.asText(), raw));
    return object;
  }

  private static JsonNode message(String type, Reader in) throws Unreadable {
    switch (type) {
      case META + "Time", META + "MicroTime" -> {
        return time(in, type.endsWith("MicroTime"));
      }
      case "k8s.io.apimachinery.pkg.api.resource.Quantity" -> {
        return NODES.textNode(firstText(in));
      }
      case META + "FieldsV1" -> {
        try {
          return new ObjectMapper().readTree(firstText(in));
        } catch (IOException e) {
          throw new Unreadable("a managedFields entry is not JSON");
        }
      }
      case "k8s.io.apimachinery.pkg.util.intstr.IntOrString" -> {
        return intOrString(in);
      }
      default -> {}
    }
    JsonNode fields = SCHEMA.path("messages").path(type);
    if (fields.isMissingNode()) {
      throw new Unreadable("the sandbox reads no protobuf " + type);
    }
    ObjectNode out = NODES.objectNode();
    // ObjectMeta's zero numbers are unset too (see unset).
    boolean metadata = type.equals(META + "ObjectMeta");
    while (in.more()) {
      long key = in.varint();
      int wire = (int) (key & 7);
      JsonNode field = fields.path(Long.toString(key >>> 3));
      if (field.isMissingNode()) {
        throw new Unreadable(
            "field " + (key >>> 3) + " of " + type + " is not one the sandbox knows; send JSON");
      }
      String name = field.get(0).asText();
      String label = field.get(1).asText();
      String valueType = field.get(2).asText();
      switch (label) {
        case "map" -> putMapEntry(out, name, valueType, in.embedded());
        case "repeated" -> addRepeated(out.withArrayProperty(name), valueType, in, wire);
        default -> {
          JsonNode value = value(valueType, in, wire);
          if (!unset(value, metadata)) {
            out.set(name, value);
          }
        }
      }
    }
    return out;
  }

  /** One map entry: key field 1, value field 2, either possibly left out. */
  private static void putMapEntry(ObjectNode out, String name, String valueType, Reader entry)
      throws Unreadable {
    String k = "";
    JsonNode v = NODES.nullNode();
    while (entry.more()) {
      long entryKey = entry.varint();
      if (entryKey >>> 3 == 1) {
        k = entry.embedded().text();
      } else {
        v = value(valueType, entry, (int) (entryKey & 7));
      }
    }
    out.withObjectProperty(name).set(k, v);
  }

  /** One element of a repeated field, or many where numbers come packed into one. */
  private static void addRepeated(ArrayNode list, String valueType, Reader in, int wire)
      throws Unreadable {
    if (wire == 2 && isNumeric(valueType)) {
      Reader packed = in.embedded();
      while (packed.more()) {
        list.add(value(valueType, packed, 0));
      }
    } else {
      list.add(value(valueType, in, wire));
    }
  }

  /**
   * Go writes every non-pointer field, set or not; its JSON leaves out the empty strings, and an
   * object's metadata the zero numbers, that a client never set.
   */
  private static boolean unset(JsonNode value, boolean metadata) {
    return value.isNull()
        || value.isTextual() && value.asText().isEmpty()
        || metadata && value.isNumber() && value.asLong() == 0;
  }

  private static boolean isNumeric(String type) {
    return type.equals("int32") || type.equals("int64") || type.equals("bool");
  }

  private static JsonNode value(String type, Reader in, int wire) throws Unreadable {
    return switch (type) {
      case "string" -> NODES.textNode(in.embedded().text());
      case "bytes" -> NODES.textNode(Base64.getEncoder().encodeToString(in.embedded().bytes()));
      case "bool" -> NODES.booleanNode(in.varint() != 0);
      case "int32" -> NODES.numberNode((int) in.varint());
      case "int64" -> NODES.numberNode(in.varint());
      case "double" -> NODES.numberNode(Double.longBitsToDouble(in.fixed(8)));
      case "float" -> NODES.numberNode(Float.intBitsToFloat((int) in.fixed(4)));
      default -> {
        if (wire != 2) {
          throw new Unreadable("a " + type + " is not length-delimited (wire type " + wire + ")");
        }
        yield message(type, in.embedded());
      }
    };
  }

  private static JsonNode time(Reader in, boolean micro) throws Unreadable {
    long seconds = 0;
    long nanos = 0;
    while (in.more()) {
      long key = in.varint();
      if (key >>> 3 == 1) {
        seconds = in.varint();
      } else if (key >>> 3 == 2) {
        nanos = in.varint();
      } else {
        in.skip((int) (key & 7));
      }
    }
    if (seconds == 0 && nanos == 0) {
      return NODES.nullNode();
    }
    Instant t = Instant.ofEpochSecond(seconds, nanos);
    return NODES.textNode(
        (micro ? t.truncatedTo(ChronoUnit.MICROS) : t.truncatedTo(ChronoUnit.SECONDS)).toString());
  }

  private static JsonNode intOrString(Reader in) throws Unreadable {
    long kind = 0;
    long number = 0;
    String text = "";
    while (in.more()) {
      long key = in.varint();
      switch ((int) (key >>> 3)) {
        case 1 -> kind = in.varint();
        case 2 -> number = in.varint();
        case 3 -> text = in.embedded().text();
        default -> in.skip((int) (key & 7));
      }
    }
    return kind == 1 ? NODES.textNode(text) : NODES.numberNode((int) number);
  }

  private static String firstText(Reader in) throws Unreadable {
    String text = "";
    while (in.more()) {
      long key = in.varint();
      if (key >>> 3 == 1 && (key & 7) == 2) {
        text = in.embedded().text();
      } else {
        in.skip((int) (key & 7));
      }
    }
    return text;
  }

  /** A window of the body, read front to back. */
  private static final class Reader {
    private final byte[] bytes;
    private int at;
    private final int end;

    Reader(byte[] bytes, int from, int end) {
      this.bytes = bytes;
      this.at = from;
      this.end = end;
    }

    boolean more() {
      return at < end;
    }

    long varint() throws Unreadable {
      long value = 0;
      for (int shift = 0; shift < 64; shift += 7) {
        if (at >= end) {
          throw new Unreadable("the protobuf body ends inside a number");
        }
        byte next = bytes[at++];
        value |= (long) (next & 0x7f) << shift;
        if ((next & 0x80) == 0) {
          return value;
        }
      }
      throw new Unreadable("the protobuf body holds a number longer than ten bytes");
    }

    long fixed(int size) throws Unreadable {
      if (at + size > end) {
        throw new Unreadable("the protobuf body ends inside a number");
      }
      long value = 0;
      for (int i = size - 1; i >= 0; i--) {
        value = value << 8 | (bytes[at + i] & 0xff);
      }
      at += size;
      return value;
    }

    Reader embedded() throws Unreadable {
      long length = varint();
      if (length < 0 || length > end - at) {
        throw new Unreadable("the protobuf body ends inside a field");
      }
      Reader r = new Reader(bytes, at, at + (int) length);
      at += (int) length;
      return r;
    }

    void skip(int wire) throws Unreadable {
      switch (wire) {
        case 0 -> varint();
        case 1 -> fixed(8);
        case 2 -> embedded();
        case 5 -> fixed(4);
        default -> throw new Unreadable("the protobuf body holds wire type " + wire);
      }
    }

    String text() {
      return new String(bytes, at, end - at, StandardCharsets.UTF_8);
    }

    byte[] bytes() {
      return java.util.Arrays.copyOfRange(bytes, at, end);
    }
  }

  private static JsonNode load() {
    try (InputStream in = Protobuf.class.getResourceAsStream("/protobuf/kubernetes.json")) {
      return new ObjectMapper().readTree(in);
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }
}
