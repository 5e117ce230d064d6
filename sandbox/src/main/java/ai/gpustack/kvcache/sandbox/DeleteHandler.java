package ai.gpustack.kvcache.sandbox;

import com.fasterxml.jackson.databind.JsonNode;
import io.fabric8.mockwebserver.dsl.HttpMethod;
import io.fabric8.mockwebserver.http.Buffer;
import io.fabric8.mockwebserver.http.MockResponse;

/** DELETE of one object, answered with the object as it then is. */
final class DeleteHandler {
  private final Store store;

  DeleteHandler(Store store) {
    this.store = store;
  }

  MockResponse serve(ResourceRequest r) {
    JsonNode stored =
        store
            .read(r.objectPath())
            .orElseThrow(() -> new StatusException(Statuses.notFound(r.kind(), r.name())));
    if (r.dryRun()) {
      return Responses.object(r, 200, stored);
    }
    MockResponse deleted =
        store.dispatch(r.resent(HttpMethod.DELETE, r.objectPath(), new Buffer()));
    if (deleted.code() >= 300) {
      return deleted;
    }
    // Still there with a deletionTimestamp while finalizers hold it; gone otherwise.
    return Responses.object(r, 200, store.read(r.objectPath()).orElse(stored));
  }
}
