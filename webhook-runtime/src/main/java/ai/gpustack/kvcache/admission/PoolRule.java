package ai.gpustack.kvcache.admission;

import ai.gpustack.kvcache.api.Message;
import ai.gpustack.kvcache.api.Problems;
import ai.gpustack.kvcache.resources.KVCachePool;
import ai.gpustack.kvcache.resources.Quantities;
import java.util.List;

/** KVCachePool admission: one backend, a positive total, backends immutable. */
final class PoolRule implements Rule {
  private final ObjectReader reader;

  PoolRule(ObjectReader reader) {
    this.reader = reader;
  }

  @Override
  public Decision decide(Request request) {
    KVCachePool pool = reader.read(request.object(), KVCachePool.class);
    Problems problems = Problems.create();
    if (pool.getSpec() == null) {
      problems.required("spec", "a pool names its backend and its quota");
      return Decision.of(request.subject(), problems, List.of());
    }
    if (pool.getSpec().backends().size() != 1) {
      problems.invalid(
          "spec.backends",
          String.join(",", pool.getSpec().backends()),
          Message.POOL_ONE_BACKEND.detail());
    }
    if (!Quantities.positive(pool.getSpec().quota().total())) {
      problems.invalid(
          "spec.quota.total",
          pool.getSpec().quota().total(),
          Message.QUANTITY_NOT_POSITIVE.detail());
    }
    if (request.isUpdate()) {
      KVCachePool old = reader.read(request.oldObject(), KVCachePool.class);
      if (old.getSpec() != null && !old.getSpec().backends().equals(pool.getSpec().backends())) {
        problems.forbidden("spec.backends", Message.POOL_BACKENDS_IMMUTABLE.detail());
      }
    }
    return Decision.of(request.subject(), problems, List.of());
  }
}
