package ai.gpustack.kvcache.operator.e2e;

import static org.assertj.core.api.Assertions.assertThat;

import ai.gpustack.kvcache.operator.Shell;
import ai.gpustack.kvcache.operator.cli.ShippedJar;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Set;
import java.util.TreeSet;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Order;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

/**
 * Part 6: what the sandbox gets wrong. Every step of {@link KubectlSteps} runs with this machine's
 * kubectl against the real control plane and against {@code kvcache sandbox --serve}; a step whose
 * exit code, error text or output shape differs must be listed in docs/sandbox.md's table of
 * differences, and every step listed there must still differ: the list stays true both ways. The
 * comparison of each run is written to {@code target/e2e/fidelity.md}.
 */
@ExtendWith(RealCluster.class)
@Order(5)
class FidelityE2E {
  static final Path DOC = Installation.REPO.resolve("docs/sandbox.md");
  static Shell real;
  static Shell sandbox;
  static Process sandboxProcess;

  @BeforeAll
  static void start(Installation installation) throws Exception {
    real = installation.admin("fidelity-real");
    Examples.apply(real);
    Path home = ControlPlane.WORK.resolve("fidelity-sandbox");
    Files.createDirectories(home);
    Path kubeconfig = home.resolve("sandbox.kubeconfig");
    Path log = home.resolve("sandbox.log");
    Files.deleteIfExists(log);
    sandboxProcess =
        ShippedJar.start(log, "sandbox", "--serve", "--kubeconfig-out", kubeconfig.toString());
    long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(120);
    while (!Files.exists(log) || !Files.readString(log).contains("ready: ")) {
      assertThat(sandboxProcess.isAlive()).as("the sandbox exited: see %s", log).isTrue();
      assertThat(System.nanoTime()).as("the sandbox did not get ready").isLessThan(deadline);
      Thread.sleep(200);
    }
    sandbox = new Shell(kubeconfig, home);
  }

  @AfterAll
  static void stop() throws Exception {
    if (sandboxProcess != null) {
      sandboxProcess.destroy();
      sandboxProcess.waitFor(20, TimeUnit.SECONDS);
    }
  }

  @Test
  void every_step_that_answers_differently_is_listed_in_the_sandbox_docs_and_nothing_else_is()
      throws Exception {
    KubectlSteps.prepare(real);
    KubectlSteps.prepare(sandbox);
    Set<String> differing = new TreeSet<>();
    StringBuilder report =
        new StringBuilder("# kubectl against the real control plane and the sandbox\n\n");
    for (KubectlSteps.Step step : KubectlSteps.STEPS) {
      String onReal = step.shape(real.sh(step.command()));
      String onSandbox = step.shape(sandbox.sh(step.command()));
      boolean same = onReal.equals(onSandbox);
      report
          .append("## `")
          .append(step.id())
          .append("` ")
          .append(same ? "same" : "DIFFERS")
          .append("\n\n");
      report.append("```\n$ ").append(step.command()).append("\n```\n\n");
      if (!same) {
        differing.add(step.id());
        report
            .append("real:\n```\n")
            .append(onReal)
            .append("\n```\nsandbox:\n```\n")
            .append(onSandbox)
            .append("\n```\n\n");
      }
    }
    Files.writeString(ControlPlane.WORK.resolve("fidelity.md"), report);
    Set<String> listed = listed();
    assertThat(differing)
        .as("steps that differ (see target/e2e/fidelity.md) against those docs/sandbox.md lists")
        .isEqualTo(listed);
  }

  /** The step ids in the first column of docs/sandbox.md's table of differences. */
  static Set<String> listed() throws Exception {
    List<String> lines = Files.readAllLines(DOC);
    int at = lines.indexOf(KubectlSteps.DOC_HEADING);
    assertThat(at)
        .as("docs/sandbox.md has the heading %s", KubectlSteps.DOC_HEADING)
        .isNotNegative();
    Set<String> ids = new TreeSet<>();
    Pattern row = Pattern.compile("^\\| `([a-z0-9-]+)` \\|");
    for (String line : lines.subList(at + 1, lines.size())) {
      if (line.startsWith("## ")) {
        break;
      }
      Matcher m = row.matcher(line);
      if (m.find()) {
        ids.add(m.group(1));
      }
    }
    return ids;
  }
}
