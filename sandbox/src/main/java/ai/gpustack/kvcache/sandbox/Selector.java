package ai.gpustack.kvcache.sandbox;

import com.fasterxml.jackson.databind.JsonNode;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.function.Predicate;

/**
 * A label selector or a field selector as the API server reads them from a query: {@code a=b},
 * {@code a==b}, {@code a!=b}, and for labels also {@code a}, {@code !a}, {@code a in (x,y)} and
 * {@code a notin (x,y)}. Field selectors name dotted paths into the object ({@code metadata.name},
 * {@code involvedObject.uid}).
 */
final class Selector implements Predicate<JsonNode> {
  private final List<Predicate<JsonNode>> requirements;

  private Selector(List<Predicate<JsonNode>> requirements) {
    this.requirements = requirements;
  }

  static final Selector EVERYTHING = new Selector(List.of());

  /** A label selector; throws {@link IllegalArgumentException} naming what does not parse. */
  static Selector labels(String selector) {
    List<Predicate<JsonNode>> out = new ArrayList<>();
    for (String part : split(selector)) {
      String p = part.trim();
      java.util.regex.Matcher set =
          java.util.regex.Pattern.compile("([^\\s!=]+)\\s+(in|notin)\\s+\\((.*)\\)").matcher(p);
      if (set.matches()) {
        String key = set.group(1);
        Set<String> values = Set.of(set.group(3).trim().split("\\s*,\\s*"));
        boolean in = set.group(2).equals("in");
        // notin also selects objects without the label; in never does.
        out.add(
            o -> {
              String value = label(o, key);
              return value == null ? !in : in == values.contains(value);
            });
      } else if (p.startsWith("!")) {
        String key = p.substring(1);
        out.add(o -> label(o, key) == null);
      } else if (p.contains("!=")) {
        String[] kv = p.split("!=", 2);
        out.add(o -> !kv[1].equals(label(o, kv[0])));
      } else if (p.contains("=")) {
        String[] kv = p.split("==?", 2);
        out.add(o -> kv[1].equals(label(o, kv[0])));
      } else if (!p.isEmpty()) {
        if (!p.matches("[A-Za-z0-9./_-]+")) {
          throw new IllegalArgumentException("unable to parse requirement: " + p);
        }
        out.add(o -> label(o, p) != null);
      }
    }
    return new Selector(out);
  }

  /** A field selector; throws {@link IllegalArgumentException} naming what does not parse. */
  static Selector fields(String selector) {
    List<Predicate<JsonNode>> out = new ArrayList<>();
    for (String part : selector.split(",")) {
      String p = part.trim();
      if (p.isEmpty()) {
        continue;
      }
      boolean not = p.contains("!=");
      String[] kv = not ? p.split("!=", 2) : p.split("==?", 2);
      if (kv.length != 2) {
        throw new IllegalArgumentException("invalid selector: '" + selector + "'");
      }
      String path = kv[0].trim();
      String value = kv[1].trim();
      out.add(o -> not != value.equals(field(o, path)));
    }
    return new Selector(out);
  }

  @Override
  public boolean test(JsonNode object) {
    return requirements.stream().allMatch(r -> r.test(object));
  }

  private static String label(JsonNode o, String key) {
    JsonNode v = o.path("metadata").path("labels").get(key);
    return v == null || v.isNull() ? null : v.asText();
  }

  /** A dotted path's text; "" where the object has nothing, as the API server compares it. */
  private static String field(JsonNode o, String path) {
    JsonNode n = o;
    for (String segment : path.split("\\.")) {
      n = n.path(segment);
    }
    return n.isValueNode() ? n.asText() : "";
  }

  /** Splits on commas outside parentheses. */
  private static List<String> split(String s) {
    List<String> parts = new ArrayList<>();
    int depth = 0;
    int start = 0;
    for (int i = 0; i < s.length(); i++) {
      char c = s.charAt(i);
      if (c == '(') {
        depth++;
      } else if (c == ')') {
        depth--;
      } else if (c == ',' && depth == 0) {
        parts.add(s.substring(start, i));
        start = i + 1;
      }
    }
    parts.add(s.substring(start));
    return parts;
  }
}
