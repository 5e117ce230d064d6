package ai.gpustack.kvcache.tck;

import ai.gpustack.kvcache.spi.ArgvDialect;
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
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
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

  /**
   * What argparse made of one argv: on success, each target's value (a string, {@code true} for a
   * toggle that was passed, the values of a list joined by spaces; absent when not set); else the
   * error's kind, candidates and detail.
   */
  public record Verdict(
      String kind, Map<String, Optional<String>> values, List<String> candidates, String detail) {
    static Verdict of(JsonNode node) {
      if (!node.has("error")) {
        Map<String, Optional<String>> values = new LinkedHashMap<>();
        JsonNode set = node.get("values");
        set.fieldNames().forEachRemaining(name -> values.put(name, value(set.get(name))));
        return new Verdict("value", values, List.of(), "");
      }
      List<String> candidates = new ArrayList<>();
      node.path("candidates").forEach(c -> candidates.add(c.asText()));
      String detail = node.path("option").asText(node.path("message").asText(""));
      return new Verdict(node.get("error").asText(), Map.of(), candidates, detail);
    }

    private static Optional<String> value(JsonNode v) {
      if (v.isNull() || (v.isBoolean() && !v.asBoolean())) {
        return Optional.empty();
      }
      if (v.isArray()) {
        List<String> items = new ArrayList<>();
        v.forEach(i -> items.add(i.asText()));
        return Optional.of(String.join(" ", items));
      }
      return Optional.of(v.asText());
    }

    /** The value argparse set {@code target} to. */
    public Optional<String> value(String target) {
      return values.getOrDefault(target, Optional.empty());
    }
  }

  /** The Python version that answered and one verdict per case, in order. */
  public record Answer(String pythonVersion, List<Verdict> verdicts) {}

  /**
   * Parses every case with a parser holding {@code inventory}'s flags, after the argv preprocessing
   * {@code dialect} describes (underscore and dotted spellings), reporting {@code targets}.
   */
  public Answer parse(
      FlagInventory inventory,
      ArgvDialect dialect,
      List<String> targets,
      List<List<String>> cases) {
    ObjectNode request = JSON.createObjectNode();
    ArrayNode flags = request.putArray("flags");
    for (FlagSpec flag : inventory.flags()) {
      flags.addObject().put("name", flag.name()).put("arity", flag.arity().name());
    }
    request
        .put("underscores", dialect.underscoresAsDashes())
        .put("dotted", dialect.dottedMembers());
    ArrayNode wanted = request.putArray("targets");
    targets.forEach(wanted::add);
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
      Path errors = Files.createTempFile("argparse_oracle", ".err");
      Files.writeString(input, JSON.writeValueAsString(request), StandardCharsets.UTF_8);
      Process p =
          new ProcessBuilder(python, script.toString())
              .redirectInput(input.toFile())
              .redirectError(errors.toFile())
              .start();
      byte[] out = p.getInputStream().readAllBytes();
      if (!p.waitFor(120, TimeUnit.SECONDS) || p.exitValue() != 0) {
        throw new IllegalStateException(
            "the argparse oracle ("
                + python
                + ") failed with exit "
                + p.exitValue()
                + " on the inventory for "
                + inventory.versions()
                + ":\n"
                + Files.readString(errors, StandardCharsets.UTF_8).strip());
      }
      Files.delete(errors);
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
