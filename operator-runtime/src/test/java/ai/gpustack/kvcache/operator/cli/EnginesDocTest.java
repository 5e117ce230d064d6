package ai.gpustack.kvcache.operator.cli;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;

/**
 * {@code docs/engines.md} is generated from the engine modules; this fails when the committed copy
 * is stale. Regenerate with {@code ./mvnw -pl operator-runtime -am test -Dtest=EnginesDocTest
 * -Dkvcache.docs.write=true -Dsurefire.failIfNoSpecifiedTests=false}.
 */
class EnginesDocTest {
  private static final Path DOC = Path.of("..", "docs", "engines.md");

  @Test
  void the_committed_engine_table_matches_the_engine_modules() throws Exception {
    CliRun run = CliRun.of("engines", "-o", "markdown");
    assertThat(run.exitCode()).isZero();
    if (Boolean.getBoolean("kvcache.docs.write")) {
      Files.writeString(DOC, run.out(), StandardCharsets.UTF_8);
    }
    assertThat(DOC).exists();
    assertThat(Files.readString(DOC, StandardCharsets.UTF_8))
        .as("docs/engines.md is stale: regenerate it (see EnginesDocTest)")
        .isEqualTo(run.out());
  }
}
