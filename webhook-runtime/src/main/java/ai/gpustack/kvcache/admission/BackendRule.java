package ai.gpustack.kvcache.admission;

import ai.gpustack.kvcache.api.Message;
import ai.gpustack.kvcache.api.Problems;
import ai.gpustack.kvcache.resources.KVCacheBackend;
import java.util.List;
import java.util.regex.Pattern;

/** KVCacheBackend admission: an external backend whose endpoint is host:port. */
final class BackendRule implements Rule {
  private static final Pattern HOST =
      Pattern.compile(
          "([a-zA-Z0-9]([a-zA-Z0-9-]{0,61}[a-zA-Z0-9])?)(\\.[a-zA-Z0-9]([a-zA-Z0-9-]{0,61}[a-zA-Z0-9])?)*"
              + "|\\[[0-9a-fA-F:.]+\\]");

  private final ObjectReader reader;

  BackendRule(ObjectReader reader) {
    this.reader = reader;
  }

  @Override
  public Decision decide(Request request) {
    KVCacheBackend backend = reader.read(request.object(), KVCacheBackend.class);
    Problems problems = Problems.create();
    if (backend.getSpec() == null || backend.getSpec().connection().external().isEmpty()) {
      problems.required("spec.connection.external", Message.BACKEND_EXTERNAL_REQUIRED.detail());
    } else {
      String endpoint = backend.getSpec().connection().external().get().clientEndpoint();
      if (!isEndpoint(endpoint)) {
        problems.invalid(
            "spec.connection.external.clientEndpoint",
            endpoint,
            Message.BACKEND_ENDPOINT_SYNTAX.detail());
      }
    }
    return Decision.of(request.subject(), problems, List.of());
  }

  /** Whether {@code endpoint} is {@code host:port} with a port from 1 to 65535. */
  static boolean isEndpoint(String endpoint) {
    int colon = endpoint.lastIndexOf(':');
    if (colon <= 0 || colon == endpoint.length() - 1 || endpoint.length() > 259) {
      return false;
    }
    String host = endpoint.substring(0, colon);
    String port = endpoint.substring(colon + 1);
    if (!port.matches("[0-9]{1,5}")
        || Integer.parseInt(port) < 1
        || Integer.parseInt(port) > 65535) {
      return false;
    }
    return HOST.matcher(host).matches();
  }
}
