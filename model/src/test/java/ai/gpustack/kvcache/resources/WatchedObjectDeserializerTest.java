package ai.gpustack.kvcache.resources;

import static org.assertj.core.api.Assertions.assertThat;

import ai.gpustack.kvcache.api.Json;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.fabric8.kubernetes.api.model.ConfigMap;
import io.fabric8.kubernetes.api.model.GenericKubernetesResource;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.Status;
import io.fabric8.kubernetes.api.model.WatchEvent;
import io.fabric8.kubernetes.client.utils.KubernetesSerialization;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

class WatchedObjectDeserializerTest {
  static final String POD =
      """
      {"kind":"Pod","apiVersion":"v1","metadata":{"name":"chat-vllm-server-0","namespace":"team-a",
       "labels":{"app.kubernetes.io/instance":"chat-vllm"},"resourceVersion":"42"},
       "spec":{"containers":[{"name":"main","image":"vllm/vllm-openai:v0.11.0",
       "args":["--kv-cache-dtype","fp8"]}]},
       "status":{"phase":"Running","conditions":[{"type":"Ready","status":"True"}]}}
      """;

  /** fabric8's own reading: the same mapper settings, without the one-pass object. */
  static KubernetesSerialization fabric8(ObjectMapper mapper) {
    KubernetesSerialization serialization = new KubernetesSerialization(mapper, true);
    KvCacheSerialization.RESOURCES.forEach(serialization::registerKubernetesResource);
    return serialization;
  }

  static WatchEvent ours(String event) {
    return KvCacheSerialization.create().unmarshal(event, WatchEvent.class);
  }

  static WatchEvent theirs(String event) {
    return fabric8(Json.newMapper()).unmarshal(event, WatchEvent.class);
  }

  @ParameterizedTest
  @ValueSource(
      strings = {
        // as the API server writes a built-in kind, then a custom resource
        "{\"type\":\"MODIFIED\",\"object\":" + POD + "}",
        "{\"type\":\"ADDED\",\"object\":{\"apiVersion\":\"worker.gpustack.ai/v1\",\"kind\":\"ModelDeployment\","
            + "\"metadata\":{\"name\":\"chat-vllm\",\"namespace\":\"team-a\"},"
            + "\"spec\":{\"model\":{\"name\":\"qwen/qwen3-8b\"},\"engine\":{\"name\":\"vLLM\","
            + "\"version\":\"0.11.0\"},\"roles\":[{\"name\":\"server\",\"replicas\":2}]}}}",
        // the kind after other fields, and the event's type after its object
        "{\"object\":{\"metadata\":{\"name\":\"p\"},\"spec\":{\"containers\":[]},\"kind\":\"Pod\","
            + "\"apiVersion\":\"v1\",\"status\":{}},\"type\":\"DELETED\"}",
        // kinds it leaves to fabric8: a built-in one, one nobody registered, none at all
        "{\"type\":\"ADDED\",\"object\":{\"kind\":\"ConfigMap\",\"apiVersion\":\"v1\","
            + "\"metadata\":{\"name\":\"c\"},\"data\":{\"a\":\"b\"}}}",
        "{\"type\":\"ADDED\",\"object\":{\"apiVersion\":\"example.com/v1\",\"kind\":\"Widget\","
            + "\"metadata\":{\"name\":\"w\"},\"spec\":{\"size\":3}}}",
        "{\"type\":\"ADDED\",\"object\":{\"metadata\":{\"name\":\"x\"}}}",
        "{\"type\":\"ERROR\",\"object\":{\"kind\":\"Status\",\"apiVersion\":\"v1\",\"status\":\"Failure\","
            + "\"message\":\"too old resource version\",\"reason\":\"Expired\",\"code\":410}}",
        "{\"type\":\"BOOKMARK\",\"object\":null}"
      })
  void every_watch_event_reads_as_fabric8_reads_it(String event) {
    WatchEvent ours = ours(event);
    WatchEvent theirs = theirs(event);
    assertThat(ours.getType()).isEqualTo(theirs.getType());
    assertThat(ours.getObject()).isEqualTo(theirs.getObject());
    if (theirs.getObject() != null) {
      assertThat(ours.getObject()).hasSameClassAs(theirs.getObject());
    }
  }

  @Test
  void each_kind_reads_as_its_class() {
    assertThat(ours("{\"type\":\"MODIFIED\",\"object\":" + POD + "}").getObject())
        .isInstanceOfSatisfying(
            Pod.class,
            p ->
                assertThat(p.getSpec().getContainers().get(0).getArgs())
                    .containsExactly("--kv-cache-dtype", "fp8"));
    assertThat(
            ours("{\"type\":\"ADDED\",\"object\":{\"kind\":\"ConfigMap\",\"apiVersion\":\"v1\","
                    + "\"metadata\":{\"name\":\"c\"}}}")
                .getObject())
        .isInstanceOf(ConfigMap.class);
    assertThat(
            ours("{\"type\":\"ADDED\",\"object\":{\"apiVersion\":\"example.com/v1\","
                    + "\"kind\":\"Widget\",\"metadata\":{\"name\":\"w\"}}}")
                .getObject())
        .isInstanceOf(GenericKubernetesResource.class);
    assertThat(
            ours("{\"type\":\"ERROR\",\"object\":{\"kind\":\"Status\",\"apiVersion\":\"v1\","
                    + "\"code\":410}}")
                .getObject())
        .isInstanceOfSatisfying(Status.class, s -> assertThat(s.getCode()).isEqualTo(410));
  }

  /** The point of it: a watched Pod binds straight from the stream, with no tree in between. */
  @Test
  void a_watched_pod_is_read_without_a_tree() {
    String event = "{\"type\":\"MODIFIED\",\"object\":" + POD + "}";
    AtomicInteger trees = new AtomicInteger();
    JsonNodeFactory counting =
        new JsonNodeFactory() {
          private static final long serialVersionUID = 1L;

          @Override
          public ObjectNode objectNode() {
            trees.incrementAndGet();
            return super.objectNode();
          }
        };
    KvCacheSerialization.create(Json.newMapper().setNodeFactory(counting))
        .unmarshal(event, WatchEvent.class);
    assertThat(trees).hasValue(0);
    fabric8(Json.newMapper().setNodeFactory(counting)).unmarshal(event, WatchEvent.class);
    assertThat(trees.get()).isPositive();
  }
}
