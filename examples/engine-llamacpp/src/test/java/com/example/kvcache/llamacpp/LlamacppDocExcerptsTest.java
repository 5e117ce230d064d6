package com.example.kvcache.llamacpp;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;

/**
 * docs/writing-an-engine.md quotes this module in {@code java excerpt} blocks; each must still be
 * in the module's source, line for line, so the walk-through cannot drift from the code.
 */
class LlamacppDocExcerptsTest {
  private static final Path DOC = Path.of("..", "..", "docs", "writing-an-engine.md");
  private static final Path SOURCE =
      Path.of("src/main/java/com/example/kvcache/llamacpp/LlamacppEngine.java");
  private static final Pattern EXCERPT = Pattern.compile("(?ms)^```java excerpt\\n(.*?)^```$");

  @Test
  void every_excerpt_in_the_doc_is_in_the_engine_source() throws IOException {
    String doc = Files.readString(DOC, StandardCharsets.UTF_8);
    String source = Files.readString(SOURCE, StandardCharsets.UTF_8);
    List<String> excerpts = new ArrayList<>();
    Matcher m = EXCERPT.matcher(doc);
    while (m.find()) {
      excerpts.add(m.group(1));
    }
    assertThat(excerpts).as("java excerpt blocks in %s", DOC).isNotEmpty();
    for (String excerpt : excerpts) {
      assertThat(source).as("%s quotes LlamacppEngine.java", DOC).contains(excerpt);
    }
  }
}
