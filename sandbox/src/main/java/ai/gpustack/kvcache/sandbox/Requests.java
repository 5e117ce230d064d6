package ai.gpustack.kvcache.sandbox;

import io.fabric8.mockwebserver.http.RecordedRequest;
import java.net.URLDecoder;
import java.nio.charset.StandardCharsets;
import java.util.LinkedHashMap;
import java.util.Map;

/** The parts of a request the handlers read: its headers, its path and its query. */
final class Requests {
  private Requests() {}

  /** A request header by name, ignoring case (HTTP/2 sends lowercase names); "" when absent. */
  static String header(RecordedRequest request, String name) {
    return request.getHeaders().toMultimap().entrySet().stream()
        .filter(e -> e.getKey().equalsIgnoreCase(name))
        .flatMap(e -> e.getValue().stream())
        .findFirst()
        .orElse("");
  }

  static String withoutQuery(String path) {
    return path.contains("?") ? path.substring(0, path.indexOf('?')) : path;
  }

  /** The query's parameters, decoded, in the order sent. */
  static Map<String, String> query(String path) {
    Map<String, String> out = new LinkedHashMap<>();
    int q = path.indexOf('?');
    if (q < 0) {
      return out;
    }
    for (String pair : path.substring(q + 1).split("&")) {
      if (pair.isEmpty()) {
        continue;
      }
      int eq = pair.indexOf('=');
      String key = URLDecoder.decode(eq < 0 ? pair : pair.substring(0, eq), StandardCharsets.UTF_8);
      String value =
          eq < 0 ? "" : URLDecoder.decode(pair.substring(eq + 1), StandardCharsets.UTF_8);
      out.put(key, value);
    }
    return out;
  }

  static boolean isWatch(Map<String, String> query) {
    return "true".equals(query.get("watch")) || "1".equals(query.get("watch"));
  }
}
