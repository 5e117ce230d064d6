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
}
