package ai.gpustack.kvcache.operator.docs;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/**
 * docs/operating.md's support matrix names the Kubernetes releases the control-plane suite is
 * pinned to: a pin moved without the matrix (or the other way round) fails here.
 */
class SupportMatrixDocTest {
  private static final Path TOOLS = Path.of("..", "tools", "control-plane");

  @ParameterizedTest
  @CsvSource({"kubernetes, newest", "kubernetes-oldest, oldest"})
  void the_matrix_names_each_pinned_release(String folder, String role) throws Exception {
    Matcher pin =
        Pattern.compile("(?m)^require k8s.io/kubernetes (v[0-9.]+)$")
            .matcher(Files.readString(TOOLS.resolve(folder).resolve("go.mod")));
    assertThat(pin.find()).as("%s/go.mod pins k8s.io/kubernetes", folder).isTrue();
    String etcd =
        Pattern.compile("(?m)^require go.etcd.io/etcd/server/v3 (v[0-9.]+)$")
            .matcher(Files.readString(TOOLS.resolve("etcd").resolve("go.mod")))
            .results()
            .findFirst()
            .orElseThrow()
            .group(1);
    String operating = Files.readString(Path.of("..", "docs", "operating.md"));
    assertThat(operating).contains("| " + pin.group(1) + " (" + role + ") | " + etcd + " |");
  }
}
