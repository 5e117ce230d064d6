package ai.gpustack.kvcache.sandbox;

import ai.gpustack.kvcache.spi.EngineRegistry;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.fabric8.mockwebserver.dsl.HttpMethod;
import io.fabric8.mockwebserver.http.Buffer;
import io.fabric8.mockwebserver.http.Dispatcher;
import io.fabric8.mockwebserver.http.MockResponse;
import io.fabric8.mockwebserver.http.RecordedRequest;
import io.fabric8.zjsonpatch.JsonPatchException;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.function.BooleanSupplier;
import java.util.function.Consumer;

/**
 * The embedded API server's front: routes each request to the handler of its verb, as fabric8's
 * mock server routes to its CRUD handlers, and turns every refusal and failure into the API
 * server's Status, so kubectl words them as it would against a cluster. Discovery and OpenAPI go to
 * {@link DiscoveryHandler}; reads to {@link GetHandler}; writes through the {@link WritePipeline};
 * everything else (watches over WebSocket among them) to fabric8's CRUD store.
 */
final class SandboxDispatcher extends Dispatcher {
  private static final ObjectMapper JSON = new ObjectMapper();

  /** What a Pod's running containers would serve. */
  private static final Set<String> CONTAINER_SUBRESOURCES =
      Set.of("log", "exec", "attach", "portforward");

  private final Store store;
  private final ResourceCatalog catalog;
  private final WritePipeline writes;
  private final DiscoveryHandler discovery;
  private final GetHandler gets;
  private final CreateHandler creates;
  private final UpdateHandler updates;
  private final DeleteHandler deletes;
  private final ScaleHandler scales;
  private final PodProxyHandler proxies;
  private final Object writeLock = new Object();
  private volatile Consumer<RecordedRequest> recorder = r -> {};

  SandboxDispatcher(
      Store store,
      WatchHub hub,
      ResourceCatalog catalog,
      EngineRegistry engines,
      Consumer<String> refusals) {
    this.store = store;
    this.catalog = catalog;
    this.writes = new WritePipeline(store, engines, refusals);
    this.discovery = new DiscoveryHandler(catalog);
    this.gets = new GetHandler(store, hub);
    this.creates = new CreateHandler(store, writes);
    this.updates = new UpdateHandler(store, writes);
    this.deletes = new DeleteHandler(store);
    this.scales = new ScaleHandler(store, writes);
    this.proxies = new PodProxyHandler(store, engines);
  }

  void serverAddress(String address) {
    discovery.serverAddress(address);
  }

  /** Turns the admission chain on or off, as when a webhook is not (yet) registered. */
  void admission(boolean on) {
    writes.admission(on);
  }

  /** Whether the webhook Service has a Ready endpoint; see {@link AdmissionChain#endpoints}. */
  void webhookEndpoints(BooleanSupplier ready) {
    writes.webhookEndpoints(ready);
  }

  /** A request the HTTPS front answers itself (a watch), for the audit log. */
  void served(RecordedRequest request) {
    recorder.accept(request);
  }

  /** Hands every request to {@code recorder} first (an audit log, for tests of permissions). */
  void record(Consumer<RecordedRequest> recorder) {
    this.recorder = recorder;
  }

  @Override
  public MockResponse dispatch(RecordedRequest request) {
    recorder.accept(request);
    try {
      if (request.method() == HttpMethod.GET) {
        return route(asJson(request));
      }
      // One write at a time: a patch reads the stored object and writes its result, and a PUT is
      // checked against the stored resourceVersion; both must see no write in between.
      synchronized (writeLock) {
        return route(asJson(request));
      }
    } catch (StatusException e) {
      return status(e.status());
    } catch (Protobuf.Unreadable e) {
      return status(Statuses.of(415, "UnsupportedMediaType", e.getMessage()));
    } catch (JsonPatchException e) {
      return status(Statuses.of(422, "Invalid", "the patch does not apply: " + e.getMessage()));
    } catch (IOException e) {
      return status(Statuses.badRequest("the body is not JSON: " + firstLine(e.getMessage())));
    } catch (RuntimeException e) {
      return status(Statuses.of(500, "InternalError", "the sandbox API server failed: " + e));
    }
  }

  private MockResponse route(RecordedRequest request) throws IOException {
    String path = Requests.withoutQuery(request.getPath());
    Map<String, String> query = Requests.query(request.getPath());
    HttpMethod method = request.method();
    if (method == HttpMethod.GET) {
      Optional<MockResponse> answer = discovery.serve(request, path);
      if (answer.isPresent()) {
        return answer.get();
      }
    }
    if (method == HttpMethod.POST && path.endsWith("/selfsubjectaccessreviews")) {
      return Responses.json(201, AccessReviews.access(JSON.readTree(request.getBody().getBytes())));
    }
    if (method == HttpMethod.POST && path.endsWith("/selfsubjectrulesreviews")) {
      return Responses.json(201, AccessReviews.rules(JSON.readTree(request.getBody().getBytes())));
    }
    Optional<ApiPath> api = ApiPath.parse(path);
    if (api.isEmpty() || Requests.isWatch(query)) {
      // fabric8's clients watch over WebSocket, which the store serves; plain-HTTP watches never
      // get here (WatchStream streams them).
      return store.dispatch(request);
    }
    ResourceCatalog.Resource kind =
        catalog
            .find(api.get().group(), api.get().plural())
            .orElseThrow(
                () ->
                    new StatusException(
                        Statuses.notFound("the server could not find the requested resource")));
    ResourceRequest r = new ResourceRequest(api.get(), kind, query, request);
    boolean status = api.get().subresource().filter("status"::equals).isPresent();
    return api.get().subresource().isEmpty() || status ? byVerb(r) : subresource(r);
  }

  private MockResponse byVerb(ResourceRequest r) throws IOException {
    return switch (r.method()) {
      case GET -> gets.serve(r);
      case POST -> creates.serve(r);
      case PUT -> updates.replace(r);
      case PATCH -> updates.patch(r);
      case DELETE -> deletes.serve(r);
      default -> store.dispatch(r.request());
    };
  }

  /** {@code scale}, the Pod proxy, and a refusal for every other subresource but status. */
  private MockResponse subresource(ResourceRequest r) throws IOException {
    String subresource = r.path().subresource().orElseThrow();
    boolean pod = r.kind().kind().equals("Pod");
    if (subresource.equals("scale") && r.kind().scalable()) {
      return scales.serve(r);
    }
    if (subresource.equals("proxy") && pod) {
      return proxies.serve(r);
    }
    if (pod && CONTAINER_SUBRESOURCES.contains(subresource)) {
      throw new StatusException(
          Statuses.badRequest(
              "the sandbox runs no containers, so pod \""
                  + r.name()
                  + "\" has no "
                  + subresource
                  + " to serve"));
    }
    throw new StatusException(
        Statuses.notFound("the server could not find the requested resource"));
  }

  /** {@code request} with a protobuf body read into JSON; any other as it is. */
  private static RecordedRequest asJson(RecordedRequest request) throws Protobuf.Unreadable {
    if (request.getBody() == null
        || request.getBody().size() == 0
        || !Protobuf.is(Requests.header(request, "Content-Type"))) {
      return request;
    }
    byte[] json =
        Protobuf.decode(request.getBody().getBytes()).toString().getBytes(StandardCharsets.UTF_8);
    return new RecordedRequest(
        request.getHttpVersion(),
        request.method(),
        request.getPath(),
        request
            .getHeaders()
            .newBuilder()
            .removeAll("Content-Type")
            .removeAll("content-type")
            .add("Content-Type", "application/json")
            .build(),
        new Buffer(json));
  }

  private static String firstLine(String s) {
    return String.valueOf(s).lines().findFirst().orElse("");
  }

  /** The one place a refusal becomes an answer. */
  private static MockResponse status(Statuses.Status status) {
    return new MockResponse()
        .setResponseCode(status.code())
        .setHeader("Content-Type", "application/json")
        .setBody(status.json());
  }
}
