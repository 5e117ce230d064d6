package ai.gpustack.kvcache.sandbox;

import com.fasterxml.jackson.databind.JsonNode;
import io.fabric8.mockwebserver.http.MockResponse;
import java.io.IOException;

/**
 * PUT and PATCH of an object or its status: the patch applied to the stored object, and either
 * written through the {@link WritePipeline}. Server-side apply is refused.
 */
final class UpdateHandler {
  private final Store store;
  private final WritePipeline writes;

  UpdateHandler(Store store, WritePipeline writes) {
    this.store = store;
    this.writes = writes;
  }

  MockResponse replace(ResourceRequest r) throws IOException {
    return writes.update(r, r.body(), false);
  }

  MockResponse patch(ResourceRequest r) throws IOException {
    String type = r.header("Content-Type");
    if (type.contains("apply-patch")) {
      throw new StatusException(
          Statuses.of(
              415,
              "UnsupportedMediaType",
              "the sandbox does not implement server-side apply (application/apply-patch+yaml);"
                  + " apply without --server-side"));
    }
    if ((type.contains("strategic-merge-patch") && r.kind().custom()) || !Patches.readable(type)) {
      throw new StatusException(Statuses.unsupportedPatch());
    }
    JsonNode stored =
        store
            .read(r.objectPath())
            .orElseThrow(() -> new StatusException(Statuses.notFound(r.kind(), r.name())));
    JsonNode base = r.path().subresource().isPresent() ? stored.deepCopy() : stored;
    return writes.update(r, Patches.apply(type, base, r.body()), true);
  }
}
