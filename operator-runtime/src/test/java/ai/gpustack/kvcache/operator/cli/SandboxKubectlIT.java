package ai.gpustack.kvcache.operator.cli;

import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import ai.gpustack.kvcache.operator.Shell;
import ai.gpustack.kvcache.operator.UpgradeGuideSteps;
import ai.gpustack.kvcache.resources.ModelDeployment;
import ai.gpustack.kvcache.spi.EngineRegistry;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.io.TempDir;

/**
 * The upgrade guide's kubectl commands against the sandbox. Skipped, saying why, only where kubectl
 * (or, for the one pipeline that uses it, jq) is missing. The real control plane runs the same
 * steps in {@code UpgradeGuideE2E}.
 */
class SandboxKubectlIT extends UpgradeGuideSteps {
  @TempDir static Path dir;
  static Sandbox sandbox;
  static Path kubeconfig;

  @BeforeAll
  static void start() throws Exception {
    assumeTrue(
        Shell.onPath("kubectl"),
        "kubectl is not on the PATH; the upgrade guide's commands need it");
    sandbox = Sandbox.start(EngineRegistry.load(), 0, new PrintWriter(new StringWriter()));
    sandbox.applyExamples();
    // Stored (and managed, so with its finalizer) before the upgrade: admission switched off.
    sandbox.server().admission(false);
    ModelDeployment stored =
        sandbox
            .client()
            .getKubernetesSerialization()
            .unmarshal(STORED_OWN_FLAG, ModelDeployment.class);
    stored.getMetadata().setFinalizers(java.util.List.of("worker.gpustack.ai/model-deployment"));
    sandbox.client().resource(stored).create();
    sandbox.server().admission(true);
    assertThat(sandbox.awaitSettled()).isTrue();
    kubeconfig = dir.resolve("sandbox.kubeconfig");
    Files.writeString(kubeconfig, sandbox.server().kubeconfig());
  }

  @AfterAll
  static void stop() {
    if (sandbox != null) {
      sandbox.close();
    }
  }

  @Override
  protected Shell shell() {
    return new Shell(kubeconfig, dir);
  }
}
