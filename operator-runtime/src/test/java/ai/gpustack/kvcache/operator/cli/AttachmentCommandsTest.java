package ai.gpustack.kvcache.operator.cli;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.dataformat.yaml.YAMLFactory;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;

/**
 * {@code kvcache render} and {@code kvcache review} resolve a Binding alike: one attachment path.
 */
class AttachmentCommandsTest {
  static String file(String name) {
    return Path.of("src/test/resources/attach", name).toString();
  }

  static final String UNREADABLE =
      "KVCachePoolBinding \"upper\" stores spec.domain.dtype \"BF16\", which cannot be handed to the"
          + " engine (must be lowercase";

  @Test
  void a_binding_whose_stored_dtype_does_not_read_stops_render_and_review_with_one_reason()
      throws Exception {
    CliRun render =
        CliRun.of("render", "-f", file("cluster.yaml"), "-f", file("deployment-upper.yaml"));
    assertThat(render.exitCode()).isEqualTo(1);
    assertThat(render.out()).isEmpty();
    assertThat(render.err())
        .contains(
            "kvcache render: ModelDeployment team-a/upper: DtypeAccepted=False (DtypeUnreadable): "
                + UNREADABLE)
        .contains("The rollout is held");

    CliRun review = CliRun.of("review", "-f", file("cluster.yaml"), file("pod-upper.yaml"));
    assertThat(review.exitCode()).isEqualTo(1);
    String denial =
        ReviewCommandTest.documents(review.out()).get(0).at("/response/status/message").asText();
    assertThat(denial).contains(UNREADABLE);
    // The same words, to the end of the reason, on both.
    String reason = denial.substring(denial.indexOf(UNREADABLE));
    assertThat(render.err()).contains(reason);
  }

  @Test
  void render_and_injection_connect_to_the_backends_endpoint_when_the_pool_echoes_another()
      throws Exception {
    CliRun render =
        CliRun.of("render", "-f", file("cluster.yaml"), "-f", file("deployment-chat.yaml"));
    assertThat(render.exitCode()).as(render.err()).isZero();
    CliRun review =
        CliRun.of("review", "-f", file("cluster.yaml"), "--patched", file("pod-chat.yaml"));
    assertThat(review.exitCode()).as(review.err()).isZero();
    JsonNode patched = ReviewCommandTest.documents(review.out()).get(1);
    String injected =
        patched.at("/metadata/annotations").get("kvcache.gpustack.ai/client-config").asText();
    JsonNode pod =
        new ObjectMapper(new YAMLFactory()).readerFor(JsonNode.class).readValue(render.out());
    String rendered =
        pod.at("/metadata/annotations").get("kvcache.gpustack.ai/client-config").asText();
    assertThat(injected)
        .contains("\"master_server_address\":\"backend-master.kv.svc:50051\"")
        .isEqualTo(rendered);
  }
}
