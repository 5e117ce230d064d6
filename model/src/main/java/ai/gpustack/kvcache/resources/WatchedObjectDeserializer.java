package ai.gpustack.kvcache.resources;

import com.fasterxml.jackson.core.JsonParser;
import com.fasterxml.jackson.core.JsonToken;
import com.fasterxml.jackson.core.util.JsonParserSequence;
import com.fasterxml.jackson.databind.DeserializationContext;
import com.fasterxml.jackson.databind.JsonDeserializer;
import com.fasterxml.jackson.databind.annotation.JsonDeserialize;
import com.fasterxml.jackson.databind.deser.std.StdDeserializer;
import com.fasterxml.jackson.databind.util.TokenBuffer;
import io.fabric8.kubernetes.api.model.HasMetadata;
import io.fabric8.kubernetes.api.model.KubernetesResource;
import io.fabric8.kubernetes.api.model.Pod;
import java.io.IOException;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.Function;
import java.util.stream.Collectors;
import java.util.stream.Stream;

/**
 * A watch event's object read in one pass. fabric8 reads every object into a tree to learn its
 * kind, then binds the tree: two passes over each object the API server sends, 29 % of the
 * operator's CPU samples at a 2,000-deployment cold start. The API server writes {@code apiVersion}
 * and {@code kind} first, so the class is known after two fields; the fields read until then are
 * replayed ahead of the rest of the stream. A kind not listed here, or an object that names no
 * kind, is read as fabric8 reads it.
 */
final class WatchedObjectDeserializer extends StdDeserializer<Object> {
  private static final long serialVersionUID = 1L;

  /** What the informers here watch: Pods and this project's resources, by apiVersion/kind. */
  private static final Map<String, Class<?>> BOUND =
      Stream.concat(Stream.of(Pod.class), KvCacheSerialization.RESOURCES.stream())
          .collect(
              Collectors.toUnmodifiableMap(
                  c -> HasMetadata.getApiVersion(c) + "/" + HasMetadata.getKind(c),
                  Function.identity()));

  /**
   * Each class's root deserializer, once found: {@code DeserializationContext.readValue} finds it
   * anew per call, resolving the class's annotations and contextualizing its bean deserializer, an
   * eighth of this reading's samples under Pod creates. One instance serves one mapper.
   */
  private final transient Map<Class<?>, JsonDeserializer<Object>> roots = new ConcurrentHashMap<>();

  WatchedObjectDeserializer() {
    super(Object.class);
  }

  /** Puts this reading on fabric8's {@code WatchEvent.setObject}, in place of its own. */
  abstract static class OnWatchEvent {
    @JsonDeserialize(using = WatchedObjectDeserializer.class)
    abstract void setObject(Object object);
  }

  @Override
  public Object deserialize(JsonParser p, DeserializationContext context) throws IOException {
    if (!p.isExpectedStartObjectToken()) {
      return context.readValue(p, KubernetesResource.class);
    }
    TokenBuffer head = context.bufferForInputBuffering(p);
    head.writeStartObject();
    String apiVersion = null;
    String kind = null;
    while ((apiVersion == null || kind == null) && p.nextToken() == JsonToken.FIELD_NAME) {
      String field = p.currentName();
      if (p.nextToken() == JsonToken.VALUE_STRING) {
        if (field.equals("apiVersion")) {
          apiVersion = p.getText();
        } else if (field.equals("kind")) {
          kind = p.getText();
        }
      }
      head.writeFieldName(field);
      head.copyCurrentStructure(p);
    }
    JsonParser replay;
    if (apiVersion == null || kind == null) {
      // the object ended before naming both
      head.writeEndObject();
      replay = head.asParser(p);
    } else {
      replay = JsonParserSequence.createFlattened(false, head.asParser(p), p);
    }
    replay.nextToken();
    Class<?> type = BOUND.getOrDefault(apiVersion + "/" + kind, KubernetesResource.class);
    JsonDeserializer<Object> root = roots.get(type);
    if (root == null) {
      root = context.findRootValueDeserializer(context.constructType(type));
      roots.put(type, root);
    }
    return root.deserialize(replay, context);
  }
}
