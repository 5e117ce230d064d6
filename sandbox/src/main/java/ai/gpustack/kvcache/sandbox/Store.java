package ai.gpustack.kvcache.sandbox;

import ai.gpustack.kvcache.resources.KVCacheBackend;
import ai.gpustack.kvcache.resources.KVCachePool;
import ai.gpustack.kvcache.resources.KVCachePoolBinding;
import ai.gpustack.kvcache.resources.Keys;
import ai.gpustack.kvcache.resources.KvCacheSerialization;
import ai.gpustack.kvcache.resources.ModelDeployment;
import ai.gpustack.kvcache.resources.Setting;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.fabric8.kubernetes.api.model.GenericKubernetesResource;
import io.fabric8.kubernetes.api.model.HasMetadata;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.client.server.mock.KubernetesAttributesExtractor;
import io.fabric8.kubernetes.client.server.mock.KubernetesCrudDispatcher;
import io.fabric8.kubernetes.client.utils.KubernetesSerialization;
import io.fabric8.mockwebserver.crud.Attribute;
import io.fabric8.mockwebserver.crud.AttributeSet;
import io.fabric8.mockwebserver.crud.AttributeType;
import io.fabric8.mockwebserver.crud.Value;
import io.fabric8.mockwebserver.http.MockResponse;
import java.io.IOException;
import java.time.ZoneOffset;
import java.time.ZonedDateTime;
import java.time.format.DateTimeFormatter;
import java.time.temporal.ChronoUnit;
import java.util.AbstractMap;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.stream.Collectors;
import java.util.stream.Stream;

/**
 * fabric8's CRUD store, telling the {@link WatchHub} about every change it makes, whoever made it:
 * kubectl, the operator, the kubelet, a status subresource write or a finalizer's removal.
 *
 * <p>It also finds a named object (to read, write or delete) through an index by name. fabric8's
 * store matches every stored object against each request, which made the sandbox quadratic in its
 * size. A real API server reads one key.
 */
final class Store extends KubernetesCrudDispatcher {
  private static final String NAME = KubernetesAttributesExtractor.NAME;

  private static final KubernetesSerialization SERIALIZATION = new KubernetesSerialization();
  private static final ObjectMapper JSON = new ObjectMapper();

  private final WatchHub watches;

  /** The plurals admission reads whole; Pods only where labelled for injection. */
  private static final Set<String> VIEWED =
      Stream.of(
              KVCachePoolBinding.class,
              KVCachePool.class,
              KVCacheBackend.class,
              ModelDeployment.class,
              Setting.class)
          .map(HasMetadata::getPlural)
          .collect(Collectors.toUnmodifiableSet());

  private static final String PODS = HasMetadata.getPlural(Pod.class);

  /** How fabric8's extractor names a label attribute. */
  private static final String LABEL = "labels:";

  private static final KubernetesSerialization OBJECTS = KvCacheSerialization.create();

  private final Map<String, Map<AttributeSet, Viewed>> viewed = new ConcurrentHashMap<>();

  /** Stored keys by their name attribute's values; guarded by the store map's own lock. */
  private final Map<List<Value>, Set<AttributeSet>> byName = new HashMap<>();

  Store(WatchHub watches) {
    this.watches = watches;
  }

  /** The object, or the list, stored at {@code path}; empty when there is none. */
  Optional<JsonNode> read(String path) {
    MockResponse response = handleGet(path);
    if (response.code() != 200 || response.getBody() == null) {
      return Optional.empty();
    }
    try {
      return Optional.of(JSON.readTree(response.getBody().getBytes()));
    } catch (IOException e) {
      return Optional.empty();
    }
  }

  /** The objects under {@code path} in the API server's order: by namespace, then name. */
  List<JsonNode> list(String path) {
    List<JsonNode> items = new ArrayList<>();
    read(path).ifPresent(l -> l.path("items").forEach(items::add));
    items.sort(
        Comparator.comparing((JsonNode o) -> o.path("metadata").path("namespace").asText())
            .thenComparing(o -> o.path("metadata").path("name").asText()));
    return items;
  }

  /** Every object in the store now, as JSON. */
  List<String> everything() {
    Map<?, String> map = getMap();
    synchronized (map) {
      return new ArrayList<>(map.values());
    }
  }

  @Override
  public void processEvent(
      String path,
      AttributeSet pathAttributes,
      AttributeSet oldAttributes,
      GenericKubernetesResource resource,
      String newState) {
    Map<AttributeSet, String> map = getMap();
    String old;
    synchronized (map) {
      old = oldAttributes == null ? null : map.get(oldAttributes);
      super.processEvent(path, pathAttributes, oldAttributes, resource, newState);
      if (oldAttributes != null) {
        unindex(oldAttributes);
        unview(oldAttributes);
      }
      if (newState != null) {
        AttributeSet key = storedKey(pathAttributes, resource, newState);
        index(key);
        view(key, newState);
      }
    }
    if (!Objects.equals(old, newState)) {
      watches.publish(old, newState, this::requestResourceVersion);
    }
  }

  /** The key fabric8's {@code processEvent} stores {@code newState} under, computed as it does. */
  private AttributeSet storedKey(
      AttributeSet pathAttributes, GenericKubernetesResource resource, String newState) {
    KubernetesAttributesExtractor extractor =
        (KubernetesAttributesExtractor) getAttributeExtractor();
    AttributeSet key =
        resource != null ? extractor.extract(resource) : extractor.fromResource(newState);
    if (!key.containsKey(KubernetesAttributesExtractor.PLURAL)) {
      key = AttributeSet.merge(pathAttributes, key);
    }
    if (!getMap().containsKey(key)) {
      throw new IllegalStateException("the store's name index is out of step at " + key);
    }
    return key;
  }

  private void index(AttributeSet key) {
    Attribute name = key.getAttribute(NAME);
    if (name != null) {
      byName.computeIfAbsent(name.getValues(), n -> new LinkedHashSet<>()).add(key);
    }
  }

  private void unindex(AttributeSet key) {
    Attribute name = key.getAttribute(NAME);
    if (name != null && !getMap().containsKey(key)) {
      Set<AttributeSet> keys = byName.get(name.getValues());
      if (keys != null && keys.remove(key) && keys.isEmpty()) {
        byName.remove(name.getValues());
      }
    }
  }

  /**
   * The objects of the kinds admission reads (what a webhook's informers hold: the custom resources
   * and Pods labelled for injection), each parsed at most once per version, when admission first
   * reads it. The admission of a write reads them here instead of parsing or scanning the store,
   * which made every admitted write cost the whole store's size; parsing only what is read keeps a
   * status write (most writes, and never admitted) from paying for a parse.
   */
  List<HasMetadata> viewed(Class<? extends HasMetadata> kind) {
    Map<AttributeSet, Viewed> objects = viewed.get(HasMetadata.getPlural(kind));
    if (objects == null) {
      return List.of();
    }
    List<HasMetadata> out = new ArrayList<>(objects.size());
    objects.values().forEach(v -> v.object().ifPresent(out::add));
    return out;
  }

  /** One stored version of an object admission may read, parsed the first time it is. */
  private static final class Viewed {
    private final String json;
    private Optional<HasMetadata> object;

    Viewed(String json) {
      this.json = json;
    }

    /** Empty for an object the admission rules could not read either: not part of what they see. */
    synchronized Optional<HasMetadata> object() {
      if (object == null) {
        try {
          object = Optional.of(OBJECTS.unmarshal(json));
        } catch (RuntimeException e) {
          object = Optional.empty();
        }
      }
      return object;
    }
  }

  private void view(AttributeSet key, String json) {
    String plural = plural(key);
    boolean injected =
        plural.equals(PODS)
            && Optional.ofNullable(key.getAttribute(LABEL + Keys.INJECT))
                .filter(a -> a.getValues().stream().anyMatch(v -> v.toString().equals("true")))
                .isPresent();
    if (!VIEWED.contains(plural) && !injected) {
      return;
    }
    viewed.computeIfAbsent(plural, p -> new ConcurrentHashMap<>()).put(key, new Viewed(json));
  }

  private void unview(AttributeSet key) {
    Map<AttributeSet, Viewed> objects = viewed.get(plural(key));
    if (objects != null) {
      objects.remove(key);
    }
  }

  private static String plural(AttributeSet key) {
    Attribute plural = key.getAttribute(KubernetesAttributesExtractor.PLURAL);
    return plural == null || plural.getValues().isEmpty()
        ? ""
        : plural.getValues().get(0).toString();
  }

  /** The stored entry a {@link #names naming} query finds, through the index. */
  private Optional<Map.Entry<AttributeSet, String>> named(AttributeSet query) {
    Map<AttributeSet, String> map = getMap();
    synchronized (map) {
      for (AttributeSet key : byName.getOrDefault(query.getAttribute(NAME).getValues(), Set.of())) {
        if (key.matches(query)) {
          return Optional.of(new AbstractMap.SimpleImmutableEntry<>(key, map.get(key)));
        }
      }
    }
    return Optional.empty();
  }

  private static boolean names(AttributeSet query) {
    Attribute name = query.getAttribute(NAME);
    return name != null && name.getType() == AttributeType.WITH;
  }

  /**
   * A new resourceVersion when anything changed. fabric8's computes a JSON diff for this, whose
   * array comparison is a longest common subsequence: quadratic in a list such as a Binding's
   * {@code usedBy}, so each claim on a Binding of many deployments cost milliseconds. The diff is
   * empty exactly when the trees are equal.
   */
  @Override
  public void touchResourceVersion(JsonNode current, JsonNode updated) {
    if (!current.equals(updated)) {
      ((ObjectNode) updated.get("metadata"))
          .put("resourceVersion", String.valueOf(requestResourceVersion()));
    }
  }

  /** A new generation when a field other than metadata and status changed, as fabric8 decides. */
  @Override
  public void touchGeneration(JsonNode current, JsonNode updated) {
    Set<String> fields = new LinkedHashSet<>();
    current.fieldNames().forEachRemaining(fields::add);
    updated.fieldNames().forEachRemaining(fields::add);
    fields.remove("metadata");
    fields.remove("status");
    if (fields.stream().anyMatch(f -> !Objects.equals(current.get(f), updated.get(f)))) {
      ((ObjectNode) updated.get("metadata"))
          .put("generation", current.path("metadata").path("generation").asInt(0) + 1);
    }
  }

  @Override
  public void reset() {
    synchronized (getMap()) {
      super.reset();
      byName.clear();
      viewed.clear();
    }
  }

  @Override
  public Map.Entry<AttributeSet, String> findResource(AttributeSet query) {
    return names(query) ? named(query).orElse(null) : super.findResource(query);
  }

  @Override
  public MockResponse handleGet(String path) {
    AttributeSet query = getAttributeExtractor().fromPath(path);
    if (path.contains("watch=") || !names(query)) {
      return super.handleGet(path);
    }
    return named(query)
        .map(e -> new MockResponse().setResponseCode(200).setBody(e.getValue()))
        .orElseGet(() -> new MockResponse().setResponseCode(404));
  }

  /**
   * fabric8's delete, through the index: an object no finalizer holds goes at once, one held gets a
   * deletionTimestamp (once). Answers the object as it was.
   */
  @Override
  public MockResponse handleDelete(String path) {
    AttributeSet query = getAttributeExtractor().fromPath(path);
    if (!names(query)) {
      return super.handleDelete(path);
    }
    Optional<Map.Entry<AttributeSet, String>> found = named(query);
    if (found.isEmpty()) {
      return new MockResponse().setResponseCode(404);
    }
    AttributeSet key = found.get().getKey();
    GenericKubernetesResource object =
        SERIALIZATION.unmarshal(found.get().getValue(), GenericKubernetesResource.class);
    if (object.getFinalizers().isEmpty()) {
      processEvent(path, query, key, null, null);
    } else if (!object.isMarkedForDeletion()) {
      object
          .getMetadata()
          .setDeletionTimestamp(
              ZonedDateTime.now(ZoneOffset.UTC)
                  .truncatedTo(ChronoUnit.SECONDS)
                  .format(DateTimeFormatter.ISO_OFFSET_DATE_TIME));
      object.getMetadata().setResourceVersion(Long.toString(requestResourceVersion()));
      processEvent(path, query, key, object, SERIALIZATION.asJson(object));
    }
    return new MockResponse().setResponseCode(200).setBody(found.get().getValue());
  }
}
