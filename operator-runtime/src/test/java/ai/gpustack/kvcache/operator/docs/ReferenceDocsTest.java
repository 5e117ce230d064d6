package ai.gpustack.kvcache.operator.docs;

import static org.assertj.core.api.Assertions.assertThat;

import ai.gpustack.kvcache.api.Message;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Map;
import org.junit.jupiter.api.Test;

/** The generated reference pages under docs/ are current. */
class ReferenceDocsTest {
  static final Path DOCS = Path.of("..", "docs");

  @Test
  void the_committed_pages_are_the_generated_ones() throws Exception {
    for (Map.Entry<String, String> page : ReferenceDocs.pages().entrySet()) {
      Path committed = DOCS.resolve(page.getKey());
      if (Boolean.getBoolean("kvcache.golden.write")) {
        Files.writeString(committed, page.getValue(), StandardCharsets.UTF_8);
      }
      assertThat(Files.readString(committed))
          .as("docs/%s is stale; regenerate with -Dkvcache.golden.write=true", page.getKey())
          .isEqualTo(page.getValue());
    }
  }

  @Test
  void every_refusal_has_its_cause_and_fix_in_troubleshooting() {
    String page = ReferenceDocs.troubleshooting();
    for (Message r : Message.values()) {
      assertThat(page).contains(r.cause(), r.fix());
    }
  }

  @Test
  void every_docs_page_a_message_points_at_exists() throws Exception {
    java.util.regex.Matcher m =
        java.util.regex.Pattern.compile("docs/([a-z0-9-]+\\.md)")
            .matcher(ReferenceDocs.troubleshooting());
    while (m.find()) {
      assertThat(DOCS.resolve(m.group(1))).as("a message points at docs/%s", m.group(1)).exists();
    }
  }
}
