package ai.gpustack.kvcache.cluster;

import ai.gpustack.kvcache.api.Problems;
import ai.gpustack.kvcache.resources.KvCacheSerialization;
import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.MappingIterator;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.dataformat.yaml.YAMLFactory;
import io.fabric8.kubernetes.api.model.HasMetadata;
import io.fabric8.kubernetes.client.utils.KubernetesSerialization;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;

/**
 * Reads Kubernetes manifests the way people keep them: YAML or JSON files, several documents per
 * file, {@code kind: List} dumps from {@code kubectl get -o yaml}, and directories of them.
 */
public final class Manifests {
  private static final ObjectMapper YAML = new ObjectMapper(new YAMLFactory());
  private static final String KUSTOMIZE = "kustomize.config.k8s.io/";
  private static final Pattern MARK = Pattern.compile("line \\d+, column \\d+");

  private Manifests() {}

  /** A manifest that cannot be read; the message names the file and the reason. */
  public static final class UnreadableManifest extends RuntimeException {
    private static final long serialVersionUID = 1L;

    public UnreadableManifest(String message, Throwable cause) {
      super(message, cause, false, false);
    }
  }

  /** Every document of every file under {@code paths} (directories recursively), in order. */
  public static List<JsonNode> documents(List<Path> paths) {
    List<JsonNode> out = new ArrayList<>();
    for (Path path : paths) {
      for (Path file : files(path)) {
        out.addAll(documents(file));
      }
    }
    return out;
  }

  /**
   * The documents of one file; {@code List} kinds are expanded into their items, and kustomize's
   * build files ({@code kustomization.yaml}) skipped.
   */
  public static List<JsonNode> documents(Path file) {
    List<JsonNode> out = new ArrayList<>();
    try (MappingIterator<JsonNode> docs =
        YAML.readerFor(JsonNode.class).readValues(file.toFile())) {
      while (docs.hasNextValue()) {
        JsonNode doc = docs.nextValue();
        if (doc == null
            || doc.isNull()
            || doc.isMissingNode()
            || (doc.isObject() && doc.isEmpty())) {
          continue;
        }
        if (!doc.isObject() || !doc.has("kind")) {
          throw new UnreadableManifest(file + ": a document without a kind", null);
        }
        if (doc.path("apiVersion").asText().startsWith(KUSTOMIZE)) {
          // kustomize's own build file, not an object: a directory of manifests often has one.
          continue;
        }
        if (doc.path("kind").asText().endsWith("List") && doc.has("items")) {
          doc.get("items").forEach(out::add);
        } else {
          out.add(doc);
        }
      }
    } catch (IOException | RuntimeException e) {
      if (e instanceof UnreadableManifest u) {
        throw u;
      }
      throw new UnreadableManifest(file + ": " + syntax(e), e);
    }
    return out;
  }

  /**
   * A parser's complaint in one line: where, what it found, and what it was reading. SnakeYAML
   * words it over several lines, each line of text followed by its position and a snippet of the
   * file.
   */
  private static String syntax(Throwable e) {
    JsonProcessingException parse = null;
    for (Throwable t = e; t != null && parse == null; t = t.getCause()) {
      if (t instanceof JsonProcessingException p) {
        parse = p;
      }
    }
    if (parse == null) {
      return String.valueOf(e.getMessage()).lines().findFirst().orElse("");
    }
    List<String> lines = String.valueOf(parse.getOriginalMessage()).lines().toList();
    List<Integer> said = new ArrayList<>();
    for (int i = 0; i < lines.size(); i++) {
      if (!lines.get(i).isBlank() && !Character.isWhitespace(lines.get(i).charAt(0))) {
        said.add(i);
      }
    }
    if (said.isEmpty()) {
      return lines.isEmpty() ? "" : lines.get(0).strip();
    }
    int problem = said.get(said.size() - 1);
    String where =
        parse.getLocation() == null
            ? ""
            : "line "
                + parse.getLocation().getLineNr()
                + ", column "
                + parse.getLocation().getColumnNr()
                + ": ";
    for (String line : lines.subList(problem + 1, lines.size())) {
      Matcher mark = MARK.matcher(line);
      if (mark.find()) {
        where = mark.group() + ": ";
        break;
      }
    }
    String context = said.size() > 1 ? " (" + lines.get(said.get(0)) + ")" : "";
    return where + lines.get(problem) + context;
  }

  /** Every object under {@code paths}, read as its kind. */
  public static List<HasMetadata> objects(List<Path> paths) {
    KubernetesSerialization serialization = KvCacheSerialization.create();
    List<HasMetadata> out = new ArrayList<>();
    for (JsonNode doc : documents(paths)) {
      out.add(object(serialization, doc));
    }
    return out;
  }

  /** {@code doc} read as its kind; throws {@link UnreadableManifest} naming it. */
  public static HasMetadata object(KubernetesSerialization serialization, JsonNode doc) {
    try {
      Object o = serialization.unmarshal(doc.toString());
      if (o instanceof HasMetadata h && h.getMetadata() != null) {
        return h;
      }
      if (o instanceof HasMetadata) {
        throw new UnreadableManifest(
            describe(doc) + " has no metadata: name it under metadata.name", null);
      }
      throw new UnreadableManifest(describe(doc) + " is not a Kubernetes object", null);
    } catch (RuntimeException e) {
      if (e instanceof UnreadableManifest u) {
        throw u;
      }
      throw new UnreadableManifest(
          describe(doc)
              + " does not read: "
              + String.join(", ", Problems.ofReadFailure(e).messages()),
          e);
    }
  }

  private static String describe(JsonNode doc) {
    return doc.path("kind").asText("?")
        + " "
        + doc.path("metadata").path("name").asText("(unnamed)");
  }

  private static List<Path> files(Path path) {
    if (!Files.exists(path)) {
      throw new UnreadableManifest(path + ": no such file or directory", null);
    }
    if (!Files.isDirectory(path)) {
      return List.of(path);
    }
    try (Stream<Path> walk = Files.walk(path)) {
      return walk.filter(Files::isRegularFile)
          .filter(p -> p.toString().matches(".*\\.(ya?ml|json)$"))
          .sorted()
          .toList();
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }
}
