package ai.gpustack.kvcache.operator.cli;

import static org.assertj.core.api.Assertions.assertThat;

import ai.gpustack.kvcache.api.Json;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.MappingIterator;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.Test;

class ReviewCommandTest {
  static String file(String name) {
    return Path.of("src/test/resources/review", name).toString();
  }

  static List<JsonNode> documents(String out) throws Exception {
    try (MappingIterator<JsonNode> it =
        Json.newMapper().readerFor(JsonNode.class).readValues(out)) {
      return it.readAll();
    }
  }

  @Test
  void an_injected_pod_is_allowed_and_printed_patched() throws Exception {
    CliRun run = CliRun.of("review", "-f", file("cluster.yaml"), "--patched", file("pod.yaml"));
    assertThat(run.exitCode()).as(run.err()).isZero();
    List<JsonNode> docs = documents(run.out());
    assertThat(docs).hasSize(2);
    assertThat(docs.get(0).at("/response/allowed").asBoolean()).isTrue();
    assertThat(docs.get(0).at("/response/patchType").asText()).isEqualTo("JSONPatch");
    assertThat(docs.get(1).at("/spec/containers/0/args").toString())
        .isEqualTo(
            "[\"serve\",\"--kv-transfer-config\",\"{\\\"kv_connector\\\":\\\"MooncakeStoreConnector\\\",\\\"kv_role\\\":\\\"kv_both\\\"}\",\"--kv-cache-dtype\",\"bfloat16\"]");
  }

  @Test
  void a_pod_passing_the_flag_is_denied_with_exit_1() throws Exception {
    CliRun run = CliRun.of("review", "-f", file("cluster.yaml"), file("bad.yaml"));
    assertThat(run.exitCode()).isEqualTo(1);
    assertThat(documents(run.out()).get(0).at("/response/status/message").asText())
        .contains(
            "passes --kv-cache-dtype while it attaches a KV cache pool, but its dtype comes from"
                + " KVCachePoolBinding");
  }

  @Test
  void an_update_of_a_bare_object_reads_the_old_one() throws Exception {
    CliRun run = CliRun.of("review", "--old", file("binding-old.yaml"), file("binding-new.yaml"));
    assertThat(run.exitCode()).isEqualTo(1);
    assertThat(run.out()).contains("dtype is immutable");
  }

  @Test
  void an_admission_review_file_keeps_its_uid() throws Exception {
    CliRun run = CliRun.of("review", "-f", file("cluster.yaml"), file("review.json"));
    assertThat(run.exitCode()).isEqualTo(1);
    JsonNode response = documents(run.out()).get(0).get("response");
    assertThat(response.get("uid").asText()).isEqualTo("1234");
    assertThat(response.at("/status/message").asText())
        .contains("\"auto\" lets each engine resolve its own");
  }

  @Test
  void unreadable_input_exits_2_saying_why() {
    assertThat(CliRun.of("review", file("missing.yaml")).exitCode()).isEqualTo(2);
    CliRun broken = CliRun.of("review", file("broken.yaml"));
    assertThat(broken.exitCode()).isEqualTo(2);
    assertThat(broken.err())
        .startsWith("kvcache review: ")
        .contains("broken.yaml: line 2, column 1: expected ',' or ']', but got <stream end>")
        .hasLineCount(1);
    CliRun two = CliRun.of("review", file("cluster.yaml"));
    assertThat(two.exitCode()).isEqualTo(2);
    assertThat(two.err()).contains("holds 2 objects; a request is one");
    CliRun mistyped = CliRun.of("review", "-f", file("mistyped-state.yaml"), file("pod.yaml"));
    assertThat(mistyped.exitCode()).isEqualTo(2);
    assertThat(mistyped.err())
        .contains(
            "KVCachePoolBinding cache does not read: spec.domain.blockSize: Invalid value: Cannot"
                + " deserialize value of type `int` from String \"sixteen\"");
    CliRun update = CliRun.of("review", "--operation", "UPDATE", file("pod.yaml"));
    assertThat(update.exitCode()).isEqualTo(2);
    assertThat(update.err()).contains("an UPDATE needs the stored object: --old FILE");
  }
}
