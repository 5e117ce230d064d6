package ai.gpustack.kvcache.admission;

import ai.gpustack.kvcache.api.Problems;
import ai.gpustack.kvcache.resources.KVCacheBackend;
import ai.gpustack.kvcache.resources.KVCachePool;
import ai.gpustack.kvcache.resources.Quantities;
import java.util.List;
import java.util.regex.Pattern;

/** KVCachePool and KVCacheBackend admission. */
final class PoolRules {
  private static final Pattern HOST =
      Pattern.compile(
          "([a-zA-Z0-9]([a-zA-Z0-9-]{0,61}[a-zA-Z0-9])?)(\\.[a-zA-Z0-9]([a-zA-Z0-9-]{0,61}[a-zA-Z0-9])?)*"
              + "|\\[[0-9a-fA-F:.]+\\]");

  private final ObjectReader reader;

  PoolRules(ObjectReader reader) {
    this.reader = reader;
  }

  Decision decidePool(Request request) {
    if (!request.isCreate() && !request.isUpdate()) {
      return Decision.allow(List.of());
    }
    KVCachePool pool = reader.read(request.object(), KVCachePool.class);
    Problems problems = Problems.create();
    if (pool.getSpec() == null) {
      problems.required("spec", "a pool names its backend and its quota");
      return Admission.verdict(request, problems, List.of());
    }
    if (pool.getSpec().backends().size() != 1) {
      problems.invalid(
          "spec.backends",
          String.join(",", pool.getSpec().backends()),
          Refusal.POOL_ONE_BACKEND.detail());
    }
    if (!Quantities.positive(pool.getSpec().quota().total())) {
      problems.invalid(
          "spec.quota.total",
          pool.getSpec().quota().total(),
          Refusal.QUANTITY_NOT_POSITIVE.detail());
    }
    if (request.isUpdate()) {
      KVCachePool old = reader.read(request.oldObject(), KVCachePool.class);
      if (old.getSpec() != null && !old.getSpec().backends().equals(pool.getSpec().backends())) {
        problems.forbidden("spec.backends", Refusal.POOL_BACKENDS_IMMUTABLE.detail());
      }
    }
    return Admission.verdict(request, problems, List.of());
  }

  Decision decideBackend(Request request) {
    if (!request.isCreate() && !request.isUpdate()) {
      return Decision.allow(List.of());
    }
    KVCacheBackend backend = reader.read(request.object(), KVCacheBackend.class);
    Problems problems = Problems.create();
    if (backend.getSpec() == null || backend.getSpec().connection().external().isEmpty()) {
      problems.required("spec.connection.external", Refusal.BACKEND_EXTERNAL_REQUIRED.detail());
    } else {
      String endpoint = backend.getSpec().connection().external().get().clientEndpoint();
      if (!isEndpoint(endpoint)) {
        problems.invalid(
            "spec.connection.external.clientEndpoint",
            endpoint,
            Refusal.BACKEND_ENDPOINT_SYNTAX.detail());
      }
    }
    return Admission.verdict(request, problems, List.of());
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
