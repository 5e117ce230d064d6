package ai.gpustack.kvcache.sandbox;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.fabric8.mockwebserver.dsl.HttpMethod;
import io.fabric8.mockwebserver.http.Buffer;
import io.fabric8.mockwebserver.http.RecordedRequest;
import java.io.IOException;
import java.util.Map;

/** One request against one resource of the {@link ResourceCatalog}. */
record ResourceRequest(
    ApiPath path,
    ResourceCatalog.Resource kind,
    Map<String, String> query,
    RecordedRequest request) {
  private static final ObjectMapper JSON = new ObjectMapper();

  String name() {
    return path.name().orElse("");
  }

  HttpMethod method() {
    return request.method();
  }

  String header(String name) {
    return Requests.header(request, name);
  }

  JsonNode body() throws IOException {
    return JSON.readTree(request.getBody().getBytes());
  }

  boolean dryRun() {
    return "All".equals(query.get("dryRun"));
  }

  /** {@code Strict}, {@code Warn} (the API server's default) or {@code Ignore}. */
  String fieldValidation() {
    return query.getOrDefault("fieldValidation", "Warn");
  }

  /** The path without its query, subresource included. */
  String pathWithoutQuery() {
    return Requests.withoutQuery(request.getPath());
  }

  /** The path without query or subresource: where the object itself is stored. */
  String objectPath() {
    String bare = pathWithoutQuery();
    return path.subresource().isPresent()
        ? bare.substring(0, bare.length() - path.subresource().get().length() - 1)
        : bare;
  }

  /** This request's version and headers on another method, path and body, for the store. */
  RecordedRequest resent(HttpMethod method, String to, Buffer body) {
    return new RecordedRequest(request.getHttpVersion(), method, to, request.getHeaders(), body);
  }
}
