package ai.gpustack.kvcache.sandbox;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.ArrayList;
import java.util.Collections;
import java.util.HexFormat;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;

/**
 * The OpenAPI v3 documents kubectl reads, built from the CRDs and the built-in kinds the sandbox
 * serves: {@code /openapi/v3} lists one document per group-version, and each document has a path
 * per resource whose PATCH names its kind and takes {@code fieldValidation} (so kubectl lets the
 * server validate, as a real one does), the patch types the kind accepts, and a schema per kind
 * ({@code kubectl explain} reads the CRDs' own). Built-in kinds get a schema without fields.
 */
final class OpenApi {
  /** What {@code /openapi/v2} answers: an empty protobuf document kubectl reads as "nothing". */
  static final String V2_CONTENT_TYPE =
      "application/com.github.proto-openapi.spec.v2.v1.0+protobuf";

  private static final ObjectMapper JSON = new ObjectMapper();
  private static final String META = "io.k8s.apimachinery.pkg.apis.meta.v1.";
  private static final String OBJECT_META = META + "ObjectMeta";
  private static final String MANAGED_FIELDS = META + "ManagedFieldsEntry";
  private static final String OWNER_REFERENCE = META + "OwnerReference";

  /** One group-version's document, its bytes and their hash. */
  record Document(String key, byte[] json, String hash) {}

  private final Map<String, Document> documents = new LinkedHashMap<>();
  private final byte[] discovery;

  OpenApi(ResourceCatalog catalog) {
    Map<String, ObjectNode> byGroupVersion = new LinkedHashMap<>();
    for (ResourceCatalog.Resource r : catalog.all()) {
      String key =
          r.group().isEmpty() ? "api/" + r.version() : "apis/" + r.group() + "/" + r.version();
      ObjectNode doc = byGroupVersion.computeIfAbsent(key, k -> emptyDocument());
      add(doc, r);
    }
    ObjectNode paths = JSON.createObjectNode();
    byGroupVersion.forEach(
        (key, doc) -> {
          byte[] json = bytes(doc);
          String hash = sha512(json);
          documents.put(key, new Document(key, json, hash));
          paths.putObject(key).put("serverRelativeURL", "/openapi/v3/" + key + "?hash=" + hash);
        });
    ObjectNode root = JSON.createObjectNode();
    root.set("paths", paths);
    discovery = bytes(root);
  }

  /** {@code /openapi/v3}. */
  byte[] discovery() {
    return discovery;
  }

  /** {@code /openapi/v3/<key>}, the key being {@code api/v1} or {@code apis/<group>/<version>}. */
  Optional<Document> document(String key) {
    return Optional.ofNullable(documents.get(key));
  }

  /** A group-version's document before its resources are added: the metadata schemas. */
  private static ObjectNode emptyDocument() {
    ObjectNode doc = JSON.createObjectNode().put("openapi", "3.0.0");
    doc.putObject("info").put("title", "Kubernetes").put("version", "v1.32.0-kvcache-sandbox");
    doc.putObject("paths");
    ObjectNode schemas = doc.putObject("components").putObject("schemas");
    objectMeta(schemas);
    managedFieldsEntry(schemas);
    ownerReference(schemas);
    return doc;
  }

  private static void objectMeta(ObjectNode schemas) {
    ObjectNode meta = schemas.putObject(OBJECT_META).put("type", "object");
    meta.put(
        "description",
        "ObjectMeta is metadata that all persisted resources must have, which includes all objects"
            + " users must create.");
    ObjectNode props = meta.putObject("properties");
    for (MetaField f : OBJECT_META_FIELDS) {
      metaField(props, f.name(), f.type(), f.description());
    }
    for (String map : List.of("labels", "annotations")) {
      ((ObjectNode) props.get(map)).putObject("additionalProperties").put("type", "string");
    }
    ((ObjectNode) props.get("finalizers")).putObject("items").put("type", "string");
    reference(((ObjectNode) props.get("managedFields")).putObject("items"), MANAGED_FIELDS);
    reference(((ObjectNode) props.get("ownerReferences")).putObject("items"), OWNER_REFERENCE);
  }

  /** A field of ObjectMeta, as {@code kubectl explain} describes it. */
  private record MetaField(String name, String type, String description) {}

  private static final List<MetaField> OBJECT_META_FIELDS =
      List.of(
          new MetaField("name", "string", "Name must be unique within a namespace."),
          new MetaField(
              "generateName",
              "string",
              "An optional prefix the server uses to generate a unique name."),
          new MetaField(
              "namespace",
              "string",
              "The namespace the object lives in; empty for cluster-scoped objects."),
          new MetaField("uid", "string", "The server-assigned unique id of this object."),
          new MetaField(
              "resourceVersion",
              "string",
              "The version of this object, for optimistic concurrency and watches."),
          new MetaField(
              "generation",
              "integer",
              "A sequence number for the desired state, bumped by changes to it."),
          new MetaField("creationTimestamp", "string", "When the object was created (RFC 3339)."),
          new MetaField(
              "deletionTimestamp",
              "string",
              "When the object is to be deleted; set by the server once its deletion is"
                  + " requested."),
          new MetaField(
              "labels",
              "object",
              "Map of string keys and values that can be used to organize and select objects."),
          new MetaField(
              "annotations", "object", "Unstructured key value map stored with the object."),
          new MetaField(
              "finalizers",
              "array",
              "Must be empty before the object is deleted from the registry."),
          new MetaField(
              "deletionGracePeriodSeconds",
              "integer",
              "Seconds allowed for this object to gracefully terminate before it is removed."),
          new MetaField("selfLink", "string", "Deprecated; the system does not set it."),
          new MetaField("managedFields", "array", "Which manager set which fields, and how."),
          new MetaField("ownerReferences", "array", "Objects this object depends on."));

  private static void managedFieldsEntry(ObjectNode schemas) {
    ObjectNode entry = schemas.putObject(MANAGED_FIELDS).put("type", "object");
    entry.put("description", "The fields a manager owns and the operation that set them.");
    ObjectNode entryProps = entry.putObject("properties");
    for (String field :
        List.of("apiVersion", "fieldsType", "manager", "operation", "subresource", "time")) {
      metaField(entryProps, field, "string", "The " + field + " of the entry.");
    }
    reference(
        metaField(entryProps, "fieldsV1", "object", "The fields, as a set."), META + "FieldsV1");
    schemas
        .putObject(META + "FieldsV1")
        .put("type", "object")
        .put("description", "A set of fields, as a trie of their paths.");
  }

  private static void ownerReference(ObjectNode schemas) {
    ObjectNode owner = schemas.putObject(OWNER_REFERENCE).put("type", "object");
    owner.put("description", "An object this one depends on, in its namespace.");
    owner.putArray("required").add("apiVersion").add("kind").add("name").add("uid");
    ObjectNode ownerProps = owner.putObject("properties");
    for (String field : List.of("apiVersion", "kind", "name", "uid")) {
      metaField(ownerProps, field, "string", "The owner's " + field + ".");
    }
    for (String field : List.of("blockOwnerDeletion", "controller")) {
      metaField(ownerProps, field, "boolean", "Whether the owner is the " + field + ".");
    }
  }

  /** Makes {@code node} a reference to the named component schema, as the API server writes it. */
  private static void reference(ObjectNode node, String schema) {
    node.remove(List.of("type"));
    node.putArray("allOf").addObject().put("$ref", "#/components/schemas/" + schema);
  }

  private static ObjectNode metaField(
      ObjectNode props, String name, String type, String description) {
    return props.putObject(name).put("type", type).put("description", description);
  }

  /** {@code r}'s paths and its kind's schema, in its group-version's document. */
  private static void add(ObjectNode doc, ResourceCatalog.Resource r) {
    ObjectNode gvk =
        JSON.createObjectNode()
            .put("group", r.group())
            .put("kind", r.kind())
            .put("version", r.version());
    addPaths((ObjectNode) doc.get("paths"), r, gvk);
    addSchema((ObjectNode) doc.get("components").get("schemas"), r, gvk);
  }

  /** The collection's and the item's operations; PATCH names the patch types {@code r} takes. */
  private static void addPaths(ObjectNode paths, ResourceCatalog.Resource r, ObjectNode gvk) {
    String prefix = (r.group().isEmpty() ? "/api/" : "/apis/" + r.group() + "/") + r.version();
    String collection = prefix + (r.namespaced() ? "/namespaces/{namespace}/" : "/") + r.plural();
    ObjectNode list = paths.putObject(collection);
    operation(list, "get", "list", gvk, r);
    operation(list, "post", "create", gvk, r);
    ObjectNode item = paths.putObject(collection + "/{name}");
    operation(item, "get", "read", gvk, r);
    operation(item, "put", "replace", gvk, r);
    ObjectNode patch = operation(item, "patch", "patch", gvk, r);
    ObjectNode content = patch.putObject("requestBody").putObject("content");
    List<String> types =
        r.custom()
            ? List.of("application/json-patch+json", "application/merge-patch+json")
            : List.of(
                "application/json-patch+json",
                "application/merge-patch+json",
                "application/strategic-merge-patch+json");
    types.forEach(t -> content.putObject(t).putObject("schema").put("type", "object"));
    operation(item, "delete", "delete", gvk, r);
  }

  /** The CRD's schema (a built-in kind gets none), with the fields every object has. */
  private static void addSchema(ObjectNode schemas, ResourceCatalog.Resource r, ObjectNode gvk) {
    ObjectNode schema = schemas.putObject(schemaName(r));
    r.schema()
        .ifPresentOrElse(
            s -> schema.setAll((ObjectNode) s.deepCopy()),
            () ->
                schema
                    .put("type", "object")
                    .put(
                        "description",
                        r.kind()
                            + " is a built-in kind; the sandbox serves it without its field schema.")
                    .put("x-kubernetes-preserve-unknown-fields", true));
    if (!schema.has("description")) {
      schema.put("description", r.kind() + " (" + r.apiVersion() + ").");
    }
    ObjectNode props = schema.withObject("properties");
    props
        .putObject("apiVersion")
        .put("type", "string")
        .put(
            "description",
            "APIVersion defines the versioned schema of this representation of an object.");
    props
        .putObject("kind")
        .put("type", "string")
        .put(
            "description",
            "Kind is a string value representing the REST resource this object represents.");
    ObjectNode metadata =
        props.putObject("metadata").put("description", "Standard object's metadata.");
    metadata.putArray("allOf").addObject().put("$ref", "#/components/schemas/" + OBJECT_META);
    schema.putArray("x-kubernetes-group-version-kind").add(gvk.deepCopy());
  }

  private static ObjectNode operation(
      ObjectNode path, String method, String verb, ObjectNode gvk, ResourceCatalog.Resource r) {
    ObjectNode op = path.putObject(method);
    op.put("operationId", verb + r.kind());
    op.put(
        "x-kubernetes-action",
        method.equals("get") && verb.equals("list") ? "list" : verb.equals("read") ? "get" : verb);
    op.set("x-kubernetes-group-version-kind", gvk.deepCopy());
    ArrayNode params = op.putArray("parameters");
    if (method.equals("post") || method.equals("put") || method.equals("patch")) {
      query(params, "dryRun", "When present, the change is checked but not persisted: All.");
      query(params, "fieldManager", "A name for the actor making the change.");
      query(
          params,
          "fieldValidation",
          "Ignore, Warn (the default) or Strict: what the server does with unknown or duplicate"
              + " fields in the request.");
    }
    ObjectNode ok = op.putObject("responses").putObject("200");
    ok.put("description", "OK");
    ok.putObject("content")
        .putObject("application/json")
        .putObject("schema")
        .put("$ref", "#/components/schemas/" + schemaName(r));
    return op;
  }

  private static void query(ArrayNode params, String name, String description) {
    ObjectNode p =
        params.addObject().put("name", name).put("in", "query").put("description", description);
    p.putObject("schema").put("type", "string").put("uniqueItems", true);
  }

  /**
   * As kube-apiserver names a kind's schema: the group reversed ({@code ai.gpustack.worker.v1.X}).
   */
  static String schemaName(ResourceCatalog.Resource r) {
    if (r.group().isEmpty()) {
      return "io.k8s.api.core." + r.version() + "." + r.kind();
    }
    List<String> parts = new ArrayList<>(List.of(r.group().split("\\.")));
    Collections.reverse(parts);
    return String.join(".", parts) + "." + r.version() + "." + r.kind();
  }

  private static byte[] bytes(JsonNode node) {
    return node.toString().getBytes(StandardCharsets.UTF_8);
  }

  private static String sha512(byte[] bytes) {
    try {
      return HexFormat.of()
          .formatHex(MessageDigest.getInstance("SHA-512").digest(bytes))
          .toUpperCase(Locale.ROOT);
    } catch (NoSuchAlgorithmException e) {
      throw new IllegalStateException(e);
    }
  }
}
