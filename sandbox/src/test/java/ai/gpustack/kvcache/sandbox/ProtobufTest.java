package ai.gpustack.kvcache.sandbox;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.fasterxml.jackson.databind.JsonNode;
import java.io.ByteArrayOutputStream;
import java.nio.charset.StandardCharsets;
import java.util.Base64;
import org.junit.jupiter.api.Test;

/** Protobuf bodies, as kubectl's typed clients send them, read into the JSON the API would hold. */
class ProtobufTest {
  /** What kubectl 1.32 sent for {@code auth can-i create modeldeployments -n team-a}. */
  static final String KUBECTL_ACCESS_REVIEW =
      "azhzAAoyChdhdXRob3JpemF0aW9uLms4cy5pby92MRIXU2VsZlN1YmplY3RBY2Nlc3NSZXZpZXcSXAoQCgASABoAIgAq"
          + "ADIAOABCABI+CjwKBnRlYW0tYRIGY3JlYXRlGhJ3b3JrZXIuZ3B1c3RhY2suYWkiACoQbW9kZWxkZXBsb3ltZW50"
          + "czIAOgAaCAgAEgAaACAAGgAiAA==";

  @Test
  void kubectls_access_review_reads_as_what_it_asks() throws Exception {
    JsonNode review = Protobuf.decode(Base64.getDecoder().decode(KUBECTL_ACCESS_REVIEW));
    assertThat(review.path("kind").asText()).isEqualTo("SelfSubjectAccessReview");
    assertThat(review.path("apiVersion").asText()).isEqualTo("authorization.k8s.io/v1");
    JsonNode attributes = review.path("spec").path("resourceAttributes");
    assertThat(attributes.toString())
        .isEqualTo(
            "{\"namespace\":\"team-a\",\"verb\":\"create\",\"group\":\"worker.gpustack.ai\","
                + "\"resource\":\"modeldeployments\"}");
    assertThat(review.path("metadata").isEmpty()).as("nothing unset is written").isTrue();
  }

  @Test
  void a_config_map_keeps_its_maps_bytes_and_a_pointer_false() throws Exception {
    byte[] metadata = concat(text(1, "settings"), text(3, "team-a"), entry(11, "app", "web"));
    byte[] raw =
        concat(
            message(1, metadata),
            entry(2, "mode", "fast"),
            message(3, concat(text(1, "blob"), bytes(2, new byte[] {0, 1, 2}))),
            varint(4 << 3, 0));
    JsonNode cm = Protobuf.decode(envelope("v1", "ConfigMap", raw));
    assertThat(cm.toString())
        .isEqualTo(
            "{\"apiVersion\":\"v1\",\"kind\":\"ConfigMap\",\"metadata\":{\"name\":\"settings\","
                + "\"namespace\":\"team-a\",\"labels\":{\"app\":\"web\"}},\"data\":{\"mode\":\"fast\"},"
                + "\"binaryData\":{\"blob\":\"AAEC\"},\"immutable\":false}");
  }

  @Test
  void a_field_the_sandbox_does_not_know_is_refused_not_dropped() {
    byte[] raw = concat(message(1, text(1, "x")), text(99, "new in a later release"));
    assertThatThrownBy(() -> Protobuf.decode(envelope("v1", "ConfigMap", raw)))
        .isInstanceOf(Protobuf.Unreadable.class)
        .hasMessage(
            "field 99 of k8s.io.api.core.v1.ConfigMap is not one the sandbox knows; send JSON");
    assertThatThrownBy(() -> Protobuf.decode(envelope("v1", "Node", raw)))
        .hasMessage(
            "the sandbox reads no protobuf Node of v1; send it as JSON (kubectl create -f FILE)");
    assertThatThrownBy(
            () -> Protobuf.decode("{\"kind\":\"ConfigMap\"}".getBytes(StandardCharsets.UTF_8)))
        .hasMessageContaining("lacks the k8s\\0 prefix");
    byte[] truncated = envelope("v1", "ConfigMap", raw);
    assertThatThrownBy(
            () -> Protobuf.decode(java.util.Arrays.copyOf(truncated, truncated.length - 3)))
        .isInstanceOf(Protobuf.Unreadable.class);
  }

  static byte[] envelope(String apiVersion, String kind, byte[] raw) {
    return concat(
        new byte[] {'k', '8', 's', 0},
        message(1, concat(text(1, apiVersion), text(2, kind))),
        bytes(2, raw));
  }

  static byte[] entry(int field, String key, String value) {
    return message(field, concat(text(1, key), text(2, value)));
  }

  static byte[] text(int field, String value) {
    return bytes(field, value.getBytes(StandardCharsets.UTF_8));
  }

  static byte[] message(int field, byte[] value) {
    return bytes(field, value);
  }

  static byte[] bytes(int field, byte[] value) {
    return concat(varint(field << 3 | 2), varint(value.length), value);
  }

  static byte[] varint(long... values) {
    ByteArrayOutputStream out = new ByteArrayOutputStream();
    for (long v : values) {
      while ((v & ~0x7fL) != 0) {
        out.write((int) (v & 0x7f) | 0x80);
        v >>>= 7;
      }
      out.write((int) v);
    }
    return out.toByteArray();
  }

  static byte[] concat(byte[]... parts) {
    ByteArrayOutputStream out = new ByteArrayOutputStream();
    for (byte[] p : parts) {
      out.writeBytes(p);
    }
    return out.toByteArray();
  }
}
