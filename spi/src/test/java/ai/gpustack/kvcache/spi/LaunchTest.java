package ai.gpustack.kvcache.spi;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.List;
import org.junit.jupiter.api.Test;

class LaunchTest {
  @Test
  void a_program_is_named_by_its_basename() {
    assertThat(Launch.identify(List.of("/usr/local/bin/vllm", "serve")).program())
        .isEqualTo("vllm");
  }

  @Test
  void python_modules_are_named_with_a_normalised_interpreter() {
    Launch launch =
        Launch.identify(List.of("/usr/bin/python3.11", "-u", "-m", "sglang.launch_server"));
    assertThat(launch.kind()).isEqualTo(LaunchKind.PYTHON_MODULE);
    assertThat(launch.program()).isEqualTo("python -m sglang.launch_server");
    assertThat(
            Launch.identify(List.of("env", "A=b", "python", "-mvllm.entrypoints.openai.api_server"))
                .program())
        .isEqualTo("python -m vllm.entrypoints.openai.api_server");
  }

  @Test
  void shells_and_scripts_are_told_apart() {
    assertThat(Launch.identify(List.of("sh", "-c", "vllm serve m")).kind())
        .isEqualTo(LaunchKind.SHELL);
    assertThat(Launch.identify(List.of("bash", "-lc", "x")).program()).isEqualTo("bash -c");
    assertThat(Launch.identify(List.of("/start.sh", "--x")).kind()).isEqualTo(LaunchKind.SCRIPT);
    assertThat(Launch.identify(List.of("python3", "serve.py")).kind())
        .isEqualTo(LaunchKind.PYTHON_FILE);
    assertThat(Launch.identify(List.of()).kind()).isEqualTo(LaunchKind.UNKNOWN);
  }

  @Test
  void a_declared_launch_with_subcommands_matches_only_those_subcommands() {
    Launch serve = Launch.identify(List.of("/usr/local/bin/lmdeploy", "serve", "api_server", "m"));
    assertThat(serve.arguments()).containsExactly("serve", "api_server", "m");
    assertThat(serve.startsWith("lmdeploy serve api_server")).isTrue();
    assertThat(serve.startsWith("lmdeploy")).isTrue();
    assertThat(serve.startsWith("lmdeploy serve gradio")).isFalse();
    assertThat(Launch.identify(List.of("lmdeploy", "chat")).startsWith("lmdeploy serve api_server"))
        .isFalse();
    assertThat(Launch.identify(List.of("lmdeploy")).startsWith("lmdeploy serve")).isFalse();
    assertThat(
            Launch.identify(List.of("python3", "-m", "vllm.entrypoints.cli.main", "serve", "m"))
                .startsWith("python -m vllm.entrypoints.cli.main serve"))
        .isTrue();
    assertThat(Launch.identify(List.of("lmdeployx", "serve")).startsWith("lmdeploy serve"))
        .isFalse();
  }
}
