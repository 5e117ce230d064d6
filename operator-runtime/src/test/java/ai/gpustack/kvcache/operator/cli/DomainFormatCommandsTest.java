package ai.gpustack.kvcache.operator.cli;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;

/**
 * One KV format per reuse domain, through {@code kvcache review} and {@code kvcache render}: the
 * domain in {@code formats/cluster.yaml} declares fp8 and was first written by vLLM 0.4.2, whose
 * fp8 is FP8 E5M2; every later vLLM stores fp8 as FP8 E4M3.
 */
class DomainFormatCommandsTest {
  static String file(String name) {
    return Path.of("src/test/resources/formats", name).toString();
  }

  static final String DIFFERS =
      "KVCachePoolBinding \"fp8\" (domain \"fp8\") holds one KV format, but dtype \"fp8\" on vLLM"
          + " 0.8.4 stores float8_e4m3fn while the domain stores float8_e5m2 since"
          + " ModelDeployment/first";

  private static JsonNode response(CliRun run) throws Exception {
    return ReviewCommandTest.documents(run.out()).get(0).path("response");
  }

  private static String warnings(CliRun run) throws Exception {
    StringBuilder all = new StringBuilder();
    response(run).path("warnings").forEach(w -> all.append(w.asText()).append('\n'));
    return all.toString();
  }

  @Test
  void a_new_deployment_whose_engine_stores_another_format_is_refused_naming_both()
      throws Exception {
    CliRun review = CliRun.of("review", "-f", file("cluster.yaml"), file("deployment-new.yaml"));
    assertThat(review.exitCode()).isEqualTo(1);
    String message = response(review).at("/status/message").asText();
    assertThat(message)
        .contains(DIFFERS)
        .contains("vLLM 0.4.2 stores float8_e5m2, vLLM 0.6.0 stores float8_e4m3fn")
        .contains("a Binding with a new domain.name");
  }

  @Test
  void an_injected_pod_whose_engine_stores_another_format_is_refused_alike() throws Exception {
    CliRun review = CliRun.of("review", "-f", file("cluster.yaml"), file("pod-new.yaml"));
    assertThat(review.exitCode()).isEqualTo(1);
    assertThat(response(review).at("/status/message").asText())
        .contains("metadata.annotations[kvcache.gpustack.ai/binding]")
        .contains(DIFFERS);
  }

  @Test
  void under_warn_both_are_admitted_with_the_same_words_as_a_warning() throws Exception {
    for (String object : new String[] {"deployment-new.yaml", "pod-new.yaml"}) {
      CliRun review =
          CliRun.of(
              "review", "-f", file("cluster.yaml"), "-f", file("setting-warn.yaml"), file(object));
      assertThat(review.exitCode()).as(object).isZero();
      assertThat(warnings(review)).as(object).contains(DIFFERS);
    }
  }

  @Test
  void render_holds_the_later_of_two_stored_deployments_that_disagree() throws Exception {
    CliRun render = CliRun.of("render", "-f", file("cluster.yaml"));
    assertThat(render.exitCode()).isEqualTo(1);
    assertThat(render.err())
        .contains(
            "kvcache render: ModelDeployment team-a/later: DtypeAccepted=False"
                + " (FormatDiffersInDomain): ")
        .contains(
            "dtype \"fp8\" on vLLM 0.6.0 stores float8_e4m3fn while the domain stores"
                + " float8_e5m2 since ModelDeployment/first")
        .doesNotContain("team-a/first:");
    // The earliest attachment renders, with the Binding's dtype.
    assertThat(render.out()).contains("name: \"first-server-0\"").contains("--kv-cache-dtype");
    assertThat(render.out()).doesNotContain("later-server-0");
  }

  @Test
  void a_role_passing_a_flag_that_changes_the_kv_format_is_admitted_with_a_warning()
      throws Exception {
    CliRun review =
        CliRun.of("review", "-f", file("cluster.yaml"), file("deployment-skip-layers.yaml"));
    assertThat(review.exitCode()).isZero();
    assertThat(warnings(review))
        .contains(
            "role \"server\" (spec.roles[0].extraArgs[0]) passes --kv-cache-dtype-skip-layers")
        .contains("keeps the listed layers' KV cache at the model's dtype");
  }

  @Test
  void preflight_shows_each_engines_format_and_breaks_on_the_disagreeing_deployment()
      throws Exception {
    CliRun preflight = CliRun.of("preflight", "-f", file("cluster.yaml"));
    assertThat(preflight.exitCode()).isEqualTo(1);
    assertThat(preflight.out())
        .containsPattern("vLLM 0\\.4\\.2 +yes +float8_e5m2 +ModelDeployment team-a/first")
        .containsPattern("vLLM 0\\.6\\.0 +yes +float8_e4m3fn +ModelDeployment team-a/later")
        .contains("BREAKS ModelDeployment team-a/later [format-differs]");
  }
}
