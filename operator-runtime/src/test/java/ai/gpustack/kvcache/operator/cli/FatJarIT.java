package ai.gpustack.kvcache.operator.cli;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.File;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

/** The shipped {@code target/kvcache.jar} runs on its own and sees every engine module. */
class FatJarIT {
  static Result run(String... args) throws Exception {
    Process p = new ProcessBuilder(ShippedJar.command(args)).start();
    String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
    String err = new String(p.getErrorStream().readAllBytes(), StandardCharsets.UTF_8);
    assertThat(p.waitFor(60, TimeUnit.SECONDS)).isTrue();
    return new Result(p.exitValue(), out, err);
  }

  record Result(int exitCode, String out, String err) {}

  @Test
  void kvcache_engines_lists_the_engines_of_both_modules() throws Exception {
    Result r = run("engines");
    assertThat(r.exitCode()).as(r.err()).isZero();
    assertThat(r.out())
        .contains("ai.gpustack.kvcache.engine.vllm.VllmEngine")
        .contains("ai.gpustack.kvcache.engine.sglang.SglangEngine");
  }

  @Test
  void kvcache_without_a_subcommand_is_a_usage_error() throws Exception {
    Result r = run();
    assertThat(r.exitCode()).isEqualTo(2);
    assertThat(r.err()).contains("a subcommand is required");
  }

  @Test
  void kvcache_review_answers_from_the_shaded_jar() throws Exception {
    Result r =
        run(
            "review",
            "-f",
            "src/test/resources/review/cluster.yaml",
            "--patched",
            "src/test/resources/review/pod.yaml");
    assertThat(r.exitCode()).as(r.err()).isZero();
    assertThat(r.out()).contains("\"--kv-cache-dtype\", \"bfloat16\"");
  }

  @Test
  void on_two_cpus_the_jar_runs_async_work_on_the_common_pool_not_a_thread_per_task()
      throws Exception {
    assertThat(probe("bare"))
        .as("the JDK's default, which the entry point changes")
        .isEqualTo("new thread");
    assertThat(probe()).isEqualTo("pool");
  }

  private static String probe(String... args) throws Exception {
    List<String> command =
        new ArrayList<>(
            List.of(
                ProcessHandle.current().info().command().orElse("java"),
                "-XX:ActiveProcessorCount=2",
                "-cp",
                ShippedJar.JAR + File.pathSeparator + Path.of("target", "test-classes"),
                AsyncPoolProbe.class.getName()));
    command.addAll(List.of(args));
    Process p = new ProcessBuilder(command).redirectErrorStream(true).start();
    String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
    assertThat(p.waitFor(60, TimeUnit.SECONDS)).isTrue();
    assertThat(p.exitValue()).as(out).isZero();
    return out.strip();
  }
}
