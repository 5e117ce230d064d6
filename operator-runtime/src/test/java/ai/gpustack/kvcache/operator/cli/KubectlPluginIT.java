package ai.gpustack.kvcache.operator.cli;

import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import ai.gpustack.kvcache.operator.Shell;
import ai.gpustack.kvcache.spi.EngineRegistry;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The shipped {@code target/kubectl-kvcache} as a kubectl plugin, with the real kubectl: found on
 * PATH through a symlink, running the jar beside the file it links to, reading KUBECONFIG, its
 * current context's namespace and {@code -n}/{@code -A}.
 */
class KubectlPluginIT {
  @TempDir static Path dir;
  static Sandbox sandbox;
  static Path kubeconfig;
  static Path bin;

  @BeforeAll
  static void start() throws Exception {
    assumeTrue(Shell.onPath("kubectl"), "kubectl is not on the PATH");
    sandbox = Sandbox.start(EngineRegistry.load(), 0, new PrintWriter(new StringWriter()));
    sandbox.applyExamples();
    assertThat(sandbox.awaitSettled()).isTrue();
    kubeconfig = dir.resolve("sandbox.kubeconfig");
    Files.writeString(kubeconfig, sandbox.server().kubeconfig());
    bin = Files.createDirectories(dir.resolve("bin"));
    Files.createSymbolicLink(
        bin.resolve("kubectl-kvcache"), Path.of("target", "kubectl-kvcache").toAbsolutePath());
  }

  @AfterAll
  static void stop() {
    if (sandbox != null) {
      sandbox.close();
    }
  }

  record Run(int exit, String out, String err) {}

  static Run sh(String command) throws Exception {
    ProcessBuilder pb = new ProcessBuilder("bash", "-c", command);
    pb.environment().put("KUBECONFIG", kubeconfig.toString());
    pb.environment().put("HOME", dir.toString());
    pb.environment().put("XDG_CACHE_HOME", dir.resolve("cache").toString());
    pb.environment().put("PATH", bin + ":" + System.getenv("PATH"));
    pb.environment().remove("KVCACHE_JAR");
    pb.redirectError(dir.resolve("err.txt").toFile());
    Process p = pb.start();
    String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
    assertThat(p.waitFor(120, TimeUnit.SECONDS)).isTrue();
    return new Run(p.exitValue(), out, Files.readString(dir.resolve("err.txt")));
  }

  @Test
  void kubectl_lists_the_plugin_and_runs_engines_through_it_twice() throws Exception {
    assertThat(sh("kubectl plugin list").out()).contains(bin.resolve("kubectl-kvcache").toString());

    Run first = sh("kubectl kvcache engines");
    Run second = sh("kubectl kvcache engines");

    assertThat(first.exit()).as(first.err()).isZero();
    assertThat(first.out()).contains("vLLM").contains("SGLang");
    assertThat(second.out()).isEqualTo(first.out());
    assertThat(second.err()).isEmpty();
    // The first run wrote the class-data archive the second one read.
    try (var archives = Files.list(dir.resolve("cache").resolve("kvcache"))) {
      assertThat(archives.map(p -> p.getFileName().toString())).anyMatch(n -> n.endsWith(".jsa"));
    }
  }

  @Test
  void verify_reads_every_namespace_with_minus_a_and_the_contexts_namespace_without()
      throws Exception {
    Run all = sh("kubectl kvcache verify -A");
    assertThat(all.exit()).as(all.out() + all.err()).isZero();
    assertThat(all.out())
        .contains("ModelDeployment/chat-vllm in team-a (Binding chat, dtype bfloat16)")
        .containsPattern("chat-vllm-server-0 +vLLM 0.29.0 +bfloat16 +bfloat16 +matches");

    Run none = sh("kubectl kvcache verify");
    assertThat(none.exit()).isZero();
    assertThat(none.out()).contains("No pool-attached replicas.");

    Run context =
        sh(
            "kubectl config set-context --current --namespace=team-a >/dev/null && kubectl kvcache verify");
    assertThat(context.out()).contains("ModelDeployment/chat-vllm in team-a");
    sh("kubectl config set-context --current --namespace=default >/dev/null");

    Run other = sh("kubectl kvcache verify -n elsewhere -o json");
    assertThat(other.exit()).isZero();
    assertThat(other.out()).contains("\"replicas\" : [ ]");
  }

  @Test
  void a_missing_jar_is_named_with_the_fix() throws Exception {
    Run run = sh("KVCACHE_JAR=/nonexistent/kvcache.jar kubectl kvcache engines");
    assertThat(run.exit()).isNotZero();
    assertThat(run.err())
        .contains("kubectl-kvcache: no kvcache.jar at /nonexistent/kvcache.jar")
        .contains("set KVCACHE_JAR");
  }
}
