package ai.gpustack.kvcache.sandbox;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.fabric8.mockwebserver.http.MockResponse;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.util.List;

/** The answers the handlers write when a request succeeds. */
final class Responses {
  private static final ObjectMapper JSON = new ObjectMapper();

  private Responses() {}

  static MockResponse json(int code, JsonNode body) {
    try {
      return new MockResponse()
          .setResponseCode(code)
          .setHeader("Content-Type", "application/json")
          .setBody(JSON.writeValueAsBytes(body));
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  /** {@code object} as asked for: a Table when the client asked for one, else itself. */
  static MockResponse object(ResourceRequest r, int code, JsonNode object) {
    boolean table = r.header("Accept").contains("as=Table");
    return json(code, table ? Tables.table(r.kind(), object) : object);
  }

  /** {@code response} with a {@code Warning} header per warning, as kubectl prints them. */
  static MockResponse warned(MockResponse response, List<String> warnings) {
    for (String warning : warnings) {
      response.addHeader(
          "Warning", "299 - \"" + warning.replace("\\", "\\\\").replace("\"", "\\\"") + "\"");
    }
    return response;
  }
}
