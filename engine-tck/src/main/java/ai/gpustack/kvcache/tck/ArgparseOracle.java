package ai.gpustack.kvcache.tck;

import ai.gpustack.kvcache.spi.FlagInventory;
import ai.gpustack.kvcache.spi.FlagSpec;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.TimeUnit;

/**
 * Python's real {@code argparse} as an oracle: builds a parser from a flag inventory and reports,
 * for each argv, what the parser makes of one target flag. Used by {@link
 * ArgparseDifferentialTest}; needs {@code python3} on the PATH.
 */
public final class ArgparseOracle {
  private static final ObjectMapper JSON = new ObjectMapper();

  private final String python;

  private ArgparseOracle(String python) {
    this.python = python;
  }

  /** The oracle, or empty when no {@code python3} runs here. */
  public static Optional<ArgparseOracle> find() {
    for (String candidate : List.of("python3", "python")) {
      try {
        Process p = new ProcessBuilder(candidate, "--version").redirectErrorStream(true).start();
        p.getInputStream().readAllBytes();
        if (p.waitFor(20, TimeUnit.SECONDS) && p.exitValue() == 0) {
          return Optional.of(new ArgparseOracle(candidate));
        }
      } catch (IOException e) {
        // not on the PATH; try the next name
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
        return Optional.empty();
      }
    }
    return Optional.empty();
  }

  /** What argparse made of the target flag in one argv. */
  public record Verdict(
      String kind, Optional<String> value, List<String> candidates, String detail) {
    static Verdict of(JsonNode node) {
      if (!node.has("error")) {
        JsonNode v = node.get("value");
        return new Verdict(
            "value", v.isNull() ? Optional.empty() : Optional.of(v.asText()), List.of(), "");
      }
      List<String> candidates = new ArrayList<>();
      node.path("candidates").forEach(c -> candidates.add(c.asText()));
      String detail = node.path("option").asText(node.path("message").asText(""));
      return new Verdict(node.get("error").asText(), Optional.empty(), candidates, detail);
    }
  }

  /** The Python version that answered and one verdict per case, in order. */
  public record Answer(String pythonVersion, List<Verdict> verdicts) {}

  /** Parses every case with a parser holding {@code inventory}'s flags. */
  public Answer parse(
      FlagInventory inventory, boolean vllmSpellings, String target, List<List<String>> cases) {
    ObjectNode request = JSON.createObjectNode();
    ArrayNode flags = request.putArray("flags");
    for (FlagSpec flag : inventory.flags()) {
      flags.addObject().put("name", flag.name()).put("arity", flag.arity().name());
    }
    request.put("vllm", vllmSpellings).put("target", target);
    ArrayNode arrays = request.putArray("cases");
    for (List<String> c : cases) {
      ArrayNode argv = arrays.addArray();
      c.forEach(argv::add);
    }
    try {
      Path script = Files.createTempFile("argparse_oracle", ".py");
      try (InputStream in = getClass().getResourceAsStream("argparse_oracle.py")) {
        Files.write(script, in.readAllBytes());
      }
      Path input = Files.createTempFile("argparse_oracle", ".json");
      Files.writeString(input, JSON.writeValueAsString(request), StandardCharsets.UTF_8);
      Process p =
          new ProcessBuilder(python, script.toString())
              .redirectInput(input.toFile())
              .redirectError(ProcessBuilder.Redirect.INHERIT)
              .start();
      byte[] out = p.getInputStream().readAllBytes();
      if (!p.waitFor(120, TimeUnit.SECONDS) || p.exitValue() != 0) {
        throw new IllegalStateException("the argparse oracle failed: exit " + p.exitValue());
      }
      Files.delete(script);
      Files.delete(input);
      JsonNode answer = JSON.readTree(out);
      List<Verdict> verdicts = new ArrayList<>();
      answer.get("results").forEach(r -> verdicts.add(Verdict.of(r)));
      return new Answer(answer.get("python").asText(), verdicts);
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new IllegalStateException(e);
    }
  }
}
