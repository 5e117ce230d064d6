package ai.gpustack.kvcache.resources;

import static org.assertj.core.api.Assertions.assertThat;

import io.fabric8.kubernetes.api.model.ManagedFieldsEntry;
import io.fabric8.kubernetes.api.model.ObjectMeta;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.WatchEvent;
import io.fabric8.kubernetes.client.utils.KubernetesSerialization;
import java.util.List;
import org.junit.jupiter.api.Test;

class KvCacheSerializationTest {
  /** A replica as the API server sends it: managed fields between the labels and the owners. */
  static final String POD =
      """
      {"apiVersion":"v1","kind":"Pod","metadata":{"name":"md-0000-server-0","namespace":"fleet",
       "labels":{"app.kubernetes.io/instance":"md-0000"},
       "managedFields":[{"manager":"kvcache-operator","operation":"Update","apiVersion":"v1",
         "time":"2026-12-04T22:01:49Z","fieldsType":"FieldsV1","fieldsV1":{"f:metadata":
         {"f:labels":{".":{},"f:app.kubernetes.io/instance":{}}},"f:spec":{"f:containers":
         {"k:{\\"name\\":\\"main\\"}":{".":{},"f:command":{}}}}}},
        {"manager":"kwok","operation":"Update","apiVersion":"v1","subresource":"status",
         "fieldsType":"FieldsV1","fieldsV1":{"f:status":{"f:phase":{}}}}],
       "ownerReferences":[{"apiVersion":"worker.gpustack.ai/v1","kind":"ModelDeployment",
         "name":"md-0000","uid":"u-1","controller":true}],"resourceVersion":"42"},
       "spec":{"containers":[{"name":"main","command":["vllm","serve"]}]},
       "status":{"phase":"Running","conditions":[{"type":"Ready","status":"True"}]}}
      """;

  static final String EVENT = "{\"type\":\"MODIFIED\",\"object\":" + POD + "}";

  final KubernetesSerialization whole = KvCacheSerialization.create();
  final KubernetesSerialization lean = KvCacheSerialization.withoutManagedFields();

  @Test
  void a_watched_or_listed_object_reads_as_whole_but_for_its_managed_fields() {
    Pod all = (Pod) whole.unmarshal(EVENT, WatchEvent.class).getObject();
    assertThat(all.getMetadata().getManagedFields()).hasSize(2);
    for (Pod read :
        List.of(
            (Pod) lean.unmarshal(EVENT, WatchEvent.class).getObject(),
            lean.unmarshal(POD, Pod.class))) {
      assertThat(read.getMetadata().getManagedFields()).isEmpty();
      assertThat(read.getMetadata().getAdditionalProperties()).isEmpty();
      all.getMetadata().setManagedFields(read.getMetadata().getManagedFields());
      assertThat(read).isEqualTo(all);
    }
  }

  @Test
  void a_write_leaves_them_out_so_the_server_keeps_its_own() {
    ObjectMeta meta = new ObjectMeta();
    meta.setName("md-0000");
    ManagedFieldsEntry entry = new ManagedFieldsEntry();
    entry.setManager("kubectl");
    meta.setManagedFields(List.of(entry));
    assertThat(whole.asJson(meta)).contains("managedFields");
    assertThat(lean.asJson(meta)).isEqualTo("{\"name\":\"md-0000\"}");
  }
}
