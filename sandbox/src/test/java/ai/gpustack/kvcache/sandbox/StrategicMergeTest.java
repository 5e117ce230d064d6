package ai.gpustack.kvcache.sandbox;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import org.junit.jupiter.api.Test;

/** Strategic merge patches of built-in kinds merge as the API server merges them. */
class StrategicMergeTest {
  static final ObjectMapper JSON = new ObjectMapper();

  static JsonNode json(String s) throws Exception {
    return JSON.readTree(s.replace('\'', '"'));
  }

  static final String POD =
      "{'metadata':{'finalizers':['a']},'spec':{'containers':[{'name':'web','image':'nginx',"
          + "'env':[{'name':'A','value':'1'},{'name':'B','value':'2'}],'args':['x','y']},"
          + "{'name':'side','image':'busybox'}]}}";

  @Test
  void lists_with_a_merge_key_merge_by_it_and_other_lists_are_replaced() throws Exception {
    JsonNode patched =
        StrategicMerge.apply(
            json(POD),
            json(
                "{'spec':{'containers':[{'name':'web','env':[{'name':'B','value':'3'}],'args':['z']}]}}"));
    assertThat(patched.path("spec").path("containers")).hasSize(2);
    JsonNode web = patched.path("spec").path("containers").get(0);
    assertThat(web.path("image").asText()).isEqualTo("nginx");
    assertThat(web.path("env").toString())
        .isEqualTo(json("[{'name':'A','value':'1'},{'name':'B','value':'3'}]").toString());
    assertThat(web.path("args").toString()).isEqualTo("[\"z\"]");
  }

  @Test
  void directives_delete_elements_and_fields_and_finalizers_merge_as_a_set() throws Exception {
    JsonNode patched =
        StrategicMerge.apply(
            json(POD),
            json(
                "{'metadata':{'finalizers':['b']},'spec':{'containers':[{'name':'side','$patch':'delete'},"
                    + "{'name':'web','image':null}]}}"));
    assertThat(patched.path("metadata").path("finalizers").toString()).isEqualTo("[\"a\",\"b\"]");
    assertThat(patched.path("spec").path("containers")).hasSize(1);
    assertThat(patched.path("spec").path("containers").get(0).has("image")).isFalse();
    JsonNode original = json(POD);
    StrategicMerge.apply(original, json("{'spec':{'containers':[]}}"));
    assertThat(original).isEqualTo(json(POD));
  }
}
