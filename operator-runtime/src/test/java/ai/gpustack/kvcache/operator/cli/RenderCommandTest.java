package ai.gpustack.kvcache.operator.cli;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;

class RenderCommandTest {
  static String file(String name) {
    return "src/test/resources/render/" + name;
  }

  @Test
  void the_pods_of_every_role_are_printed_as_yaml() {
    CliRun run = CliRun.of("render", "-f", file("cluster.yaml"), "-f", file("vllm.yaml"));
    assertThat(run.exitCode()).as(run.err()).isZero();
    assertThat(run.out().split("(?m)^---$")).hasSize(5);
    assertThat(run.out())
        .contains("name: \"chat-decode-1\"", "- \"--kv-cache-dtype\"\n    - \"bfloat16\"");
  }

  @Test
  void a_setting_given_on_the_command_line_applies() {
    CliRun run =
        CliRun.of(
            "render",
            "-f",
            file("cluster.yaml"),
            "-f",
            file("vllm.yaml"),
            "--setting",
            "model-deployment-kv-cache-dtype-owned=false");
    assertThat(run.exitCode()).isZero();
    assertThat(run.out()).doesNotContain("\"bfloat16\"");
  }

  @Test
  void a_deployment_that_cannot_render_exits_1_and_says_why() {
    CliRun run =
        CliRun.of(
            "render",
            "-f",
            file("cluster.yaml"),
            "-f",
            file("unknown-engine.yaml"),
            "-f",
            file("vllm.yaml"));
    assertThat(run.exitCode()).isEqualTo(1);
    assertThat(run.err()).contains("ModelDeployment team-a/tgi: engine \"TGI\" is not registered");
    assertThat(run.out()).contains("chat-prefill-0");
  }

  @Test
  void unreadable_input_or_an_unknown_setting_exits_2() {
    assertThat(CliRun.of("render", "-f", file("missing.yaml")).exitCode()).isEqualTo(2);
    CliRun setting = CliRun.of("render", "-f", file("vllm.yaml"), "--setting", "no-such=1");
    assertThat(setting.exitCode()).isEqualTo(2);
    assertThat(setting.err()).contains("no-such: no such Setting");
    assertThat(CliRun.of("render", "-f", file("cluster.yaml")).exitCode()).isEqualTo(2);
  }
}
