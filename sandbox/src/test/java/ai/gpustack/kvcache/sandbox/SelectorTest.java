package ai.gpustack.kvcache.sandbox;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.util.List;
import org.junit.jupiter.api.Test;

/** Label and field selectors select as the API server's do. */
class SelectorTest {
  static final ObjectMapper JSON = new ObjectMapper();

  static JsonNode object(String name, String labels) throws Exception {
    return JSON.readTree(
        "{\"metadata\":{\"name\":\""
            + name
            + "\",\"namespace\":\"team-a\",\"labels\":"
            + labels
            + "},\"status\":{\"phase\":\"Running\"}}");
  }

  static List<String> selected(Selector selector, JsonNode... objects) {
    return java.util.Arrays.stream(objects)
        .filter(selector)
        .map(o -> o.path("metadata").path("name").asText())
        .toList();
  }

  @Test
  void label_selectors_take_equality_sets_and_existence() throws Exception {
    JsonNode a = object("a", "{\"app\":\"web\",\"tier\":\"gold\"}");
    JsonNode b = object("b", "{\"app\":\"web\"}");
    JsonNode c = object("c", "{\"app\":\"db\",\"tier\":\"silver\"}");
    assertThat(selected(Selector.labels("app=web"), a, b, c)).containsExactly("a", "b");
    assertThat(selected(Selector.labels("app==web,tier"), a, b, c)).containsExactly("a");
    assertThat(selected(Selector.labels("!tier"), a, b, c)).containsExactly("b");
    assertThat(selected(Selector.labels("tier!=gold"), a, b, c)).containsExactly("b", "c");
    assertThat(selected(Selector.labels("tier in (gold, silver)"), a, b, c))
        .containsExactly("a", "c");
    assertThat(selected(Selector.labels("tier notin (gold),app"), a, b, c))
        .containsExactly("b", "c");
  }

  @Test
  void field_selectors_read_metadata_and_status_fields() throws Exception {
    JsonNode a = object("a", "{}");
    JsonNode b = object("b", "{}");
    assertThat(selected(Selector.fields("metadata.name=b"), a, b)).containsExactly("b");
    assertThat(selected(Selector.fields("metadata.name!=b,status.phase=Running"), a, b))
        .containsExactly("a");
    assertThat(selected(Selector.fields("metadata.namespace==team-b"), a, b)).isEmpty();
  }

  @Test
  void a_selector_that_does_not_parse_is_named() {
    assertThatThrownBy(() -> Selector.labels("app web"))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("app web");
    assertThatThrownBy(() -> Selector.fields("metadata.name"))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("metadata.name");
  }
}
