package ai.gpustack.kvcache.sandbox;

import com.fasterxml.jackson.databind.ObjectMapper;
import io.fabric8.mockwebserver.http.MockResponse;
import io.fabric8.mockwebserver.http.RecordedRequest;
import java.nio.charset.StandardCharsets;
import java.util.Optional;

/**
 * The GETs of no resource: {@code /version}, the health checks, discovery ({@code /api}, {@code
 * /apis}, each group-version's resource list) and the OpenAPI documents.
 */
final class DiscoveryHandler {
  private static final ObjectMapper JSON = new ObjectMapper();
  private static final String OPENAPI_V3 = "/openapi/v3/";

  private final ResourceCatalog catalog;
  private final OpenApi openApi;
  private volatile String serverAddress = "127.0.0.1";

  DiscoveryHandler(ResourceCatalog catalog) {
    this.catalog = catalog;
    this.openApi = new OpenApi(catalog);
  }

  /** The address {@code /api} tells clients to reach the server at. */
  void serverAddress(String address) {
    this.serverAddress = address;
  }

  /** The answer to a GET of {@code path} (without its query); empty when it names a resource. */
  Optional<MockResponse> serve(RecordedRequest request, String path) {
    return switch (path) {
      case "/version" -> Optional.of(version());
      case "/healthz", "/livez", "/readyz" ->
          Optional.of(text("text/plain", "ok".getBytes(StandardCharsets.UTF_8)));
      case "/api" -> Optional.of(Responses.json(200, catalog.apiVersions(serverAddress)));
      case "/apis" -> Optional.of(Responses.json(200, catalog.groups()));
      // An empty protobuf document: kubectl reads it as "nothing to validate on the client", which
      // is what it asks v2 for only as a fallback to the v3 documents below.
      case "/openapi/v2" -> Optional.of(text(OpenApi.V2_CONTENT_TYPE, new byte[0]));
      case "/openapi/v3" -> Optional.of(text("application/json", openApi.discovery()));
      default ->
          path.startsWith(OPENAPI_V3)
              ? Optional.of(openApiDocument(request, path.substring(OPENAPI_V3.length())))
              : resourceList(path);
    };
  }

  private static MockResponse version() {
    return Responses.json(
        200,
        JSON.createObjectNode()
            .put("major", "1")
            .put("minor", "32")
            .put("gitVersion", "v1.32.0-kvcache-sandbox")
            .put("platform", "linux/amd64"));
  }

  private static MockResponse text(String contentType, byte[] body) {
    return new MockResponse()
        .setResponseCode(200)
        .setHeader("Content-Type", contentType)
        .setBody(body);
  }

  /** {@code /api/<version>} or {@code /apis/<group>/<version>}. */
  private Optional<MockResponse> resourceList(String path) {
    String[] s = path.replaceAll("^/+|/+$", "").split("/");
    if (s.length == 2 && s[0].equals("api")) {
      return catalog.resources("", s[1]).map(n -> Responses.json(200, n));
    }
    if (s.length == 3 && s[0].equals("apis")) {
      return catalog.resources(s[1], s[2]).map(n -> Responses.json(200, n));
    }
    return Optional.empty();
  }

  /** One group-version's document; 304 when the client's copy has its hash. */
  private MockResponse openApiDocument(RecordedRequest request, String key) {
    OpenApi.Document d =
        openApi
            .document(key)
            .orElseThrow(
                () ->
                    new StatusException(
                        Statuses.notFound("the server could not find the requested resource")));
    String etag = "\"" + d.hash() + "\"";
    if (etag.equals(Requests.header(request, "If-None-Match"))) {
      return new MockResponse().setResponseCode(304).setHeader("Etag", etag);
    }
    return new MockResponse()
        .setResponseCode(200)
        .setHeader("Content-Type", "application/json")
        .setHeader("Etag", etag)
        .setHeader("Vary", "Accept")
        .setBody(d.json());
  }
}
