package ai.gpustack.kvcache.operator.docs;

import static org.assertj.core.api.Assertions.assertThat;

import ai.gpustack.kvcache.admission.Admission;
import ai.gpustack.kvcache.admission.Decision;
import ai.gpustack.kvcache.admission.Request;
import ai.gpustack.kvcache.admission.Route;
import ai.gpustack.kvcache.cluster.MemoryClusterView;
import ai.gpustack.kvcache.operator.TestObjects;
import ai.gpustack.kvcache.spi.EngineRegistry;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import com.fasterxml.jackson.dataformat.yaml.YAMLFactory;
import io.fabric8.kubernetes.api.model.HasMetadata;
import io.fabric8.zjsonpatch.JsonPatch;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;

/**
 * docs/injection.md quotes what the webhook appends to its example Pod; that quote is generated:
 * the Pod at the top of the page is admitted against a Binding "chat" and the patched args, env and
 * record annotation are the page's second YAML block. Regenerate with {@code
 * -Dkvcache.golden.write=true}.
 */
class InjectionDocTest {
  private static final Path DOC = ReferenceDocsTest.DOCS.resolve("injection.md");
  private static final Pattern YAML_BLOCK = Pattern.compile("(?ms)^```yaml\\n(.*?)^```$");
  private static final Pattern PLAIN = Pattern.compile("[A-Za-z0-9_./:-]+");
  private static final Pattern RESOLVES =
      Pattern.compile("-?[0-9][0-9_.:]*|(?i)true|false|yes|no|on|off|null|~");
  private static final ObjectMapper YAML = new ObjectMapper(new YAMLFactory());

  @Test
  void the_appended_args_env_and_record_are_what_the_webhook_renders() throws Exception {
    String doc = Files.readString(DOC, StandardCharsets.UTF_8);
    Matcher blocks = YAML_BLOCK.matcher(doc);
    assertThat(blocks.find()).as("the example Pod").isTrue();
    ObjectNode pod = (ObjectNode) YAML.readTree(blocks.group(1));
    pod.put("apiVersion", "v1").put("kind", "Pod");
    ((ObjectNode) pod.get("metadata")).put("name", "chat-0").put("namespace", "team-a");
    assertThat(blocks.find()).as("what is appended").isTrue();
    int start = blocks.start(1);
    int end = blocks.end(1);

    List<HasMetadata> cluster = TestObjects.objects(TestObjects.store("team-a", "chat"));
    Decision decision =
        new Admission(EngineRegistry.load(), MemoryClusterView.of(cluster))
            .decide(
                Route.POD_INJECTION,
                new Request("doc", "Pod", "CREATE", "team-a", "chat-0", pod, null));
    assertThat(decision.allowed()).as(decision.message()).isTrue();
    JsonNode patched = JsonPatch.apply(decision.patch().orElseThrow().operations(), pod);
    JsonNode container = patched.at("/spec/containers/0");
    StringBuilder shown = new StringBuilder("args: [");
    List<String> args = new ArrayList<>();
    container.get("args").forEach(a -> args.add(scalar(a.asText())));
    shown.append(String.join(", ", args)).append("]\nenv:\n");
    for (JsonNode e : container.get("env")) {
      shown
          .append("  - {name: ")
          .append(e.get("name").asText())
          .append(", value: ")
          .append(scalar(e.get("value").asText()))
          .append("}\n");
    }
    shown
        .append("annotations:\n  kvcache.gpustack.ai/injected: ")
        .append(quoted(patched.at("/metadata/annotations/kvcache.gpustack.ai~1injected").asText()))
        .append('\n');
    String generated = doc.substring(0, start) + shown + doc.substring(end);
    if (Boolean.getBoolean("kvcache.golden.write")) {
      Files.writeString(DOC, generated, StandardCharsets.UTF_8);
      doc = generated;
    }
    assertThat(doc)
        .as("docs/injection.md is stale; regenerate with -Dkvcache.golden.write=true")
        .isEqualTo(generated);
  }

  /** Plain where YAML reads it back as the same string; quoted otherwise ("1", "true"). */
  private static String scalar(String s) {
    return PLAIN.matcher(s).matches() && !RESOLVES.matcher(s).matches() ? s : quoted(s);
  }

  private static String quoted(String s) {
    return "'" + s.replace("'", "''") + "'";
  }
}
