package ai.gpustack.kvcache.sandbox;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
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

  /** One group-version's document, its bytes and their hash. */
  record Document(String key, byte[] json, String hash) {}

  private final Map<String, Document> documents = new LinkedHashMap<>();
  private final byte[] discovery;

  OpenApi(ResourceCatalog catalog) {
    Map<String, ObjectNode> byGroupVersion = new LinkedHashMap<>();
    for (ResourceCatalog.Resource r : catalog.all()) {
      String key =
          r.group().isEmpty() ? "api/" + r.version() : "apis/" + r.group() + "/" + r.version();
      ObjectNode doc = byGroupVersion.computeIfAbsent(key, k -> document());
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

  private static ObjectNode document() {
    ObjectNode doc = JSON.createObjectNode().put("openapi", "3.0.0");
    doc.putObject("info").put("title", "Kubernetes").put("version", "v1.32.0-kvcache-sandbox");
    doc.putObject("paths");
    ObjectNode schemas = doc.putObject("components").putObject("schemas");
    ObjectNode meta = schemas.putObject(OBJECT_META).put("type", "object");
    meta.put(
        "description",
        "ObjectMeta is metadata that all persisted resources must have, which includes all objects"
            + " users must create.");
    ObjectNode props = meta.putObject("properties");
    metaField(props, "name", "string", "Name must be unique within a namespace.");
    metaField(
        props,
        "generateName",
        "string",
        "An optional prefix the server uses to generate a unique name.");
    metaField(
        props,
        "namespace",
        "string",
        "The namespace the object lives in; empty for cluster-scoped objects.");
    metaField(props, "uid", "string", "The server-assigned unique id of this object.");
    metaField(
        props,
        "resourceVersion",
        "string",
        "The version of this object, for optimistic concurrency and watches.");
    metaField(
        props,
        "generation",
        "integer",
        "A sequence number for the desired state, bumped by changes to it.");
    metaField(props, "creationTimestamp", "string", "When the object was created (RFC 3339).");
    metaField(
        props,
        "deletionTimestamp",
        "string",
        "When the object is to be deleted; set by the server once its deletion is requested.");
    ObjectNode labels =
        metaField(
            props,
            "labels",
            "object",
            "Map of string keys and values that can be used to organize and select objects.");
    labels.putObject("additionalProperties").put("type", "string");
    ObjectNode annotations =
        metaField(
            props, "annotations", "object", "Unstructured key value map stored with the object.");
    annotations.putObject("additionalProperties").put("type", "string");
    ObjectNode finalizers =
        metaField(
            props,
            "finalizers",
            "array",
            "Must be empty before the object is deleted from the registry.");
    finalizers.putObject("items").put("type", "string");
    metaField(
        props,
        "deletionGracePeriodSeconds",
        "integer",
        "Seconds allowed for this object to gracefully terminate before it is removed.");
    metaField(props, "selfLink", "string", "Deprecated; the system does not set it.");
    ObjectNode managed =
        metaField(props, "managedFields", "array", "Which manager set which fields, and how.");
    reference(managed.putObject("items"), META + "ManagedFieldsEntry");
    ObjectNode owners =
        metaField(props, "ownerReferences", "array", "Objects this object depends on.");
    reference(owners.putObject("items"), META + "OwnerReference");

    ObjectNode entry = schemas.putObject(META + "ManagedFieldsEntry").put("type", "object");
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

    ObjectNode owner = schemas.putObject(META + "OwnerReference").put("type", "object");
    owner.put("description", "An object this one depends on, in its namespace.");
    owner.putArray("required").add("apiVersion").add("kind").add("name").add("uid");
    ObjectNode ownerProps = owner.putObject("properties");
    for (String field : List.of("apiVersion", "kind", "name", "uid")) {
      metaField(ownerProps, field, "string", "The owner's " + field + ".");
    }
    for (String field : List.of("blockOwnerDeletion", "controller")) {
      metaField(ownerProps, field, "boolean", "Whether the owner is the " + field + ".");
    }
    return doc;
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

  private static void add(ObjectNode doc, ResourceCatalog.Resource r) {
    ObjectNode gvk =
        JSON.createObjectNode()
            .put("group", r.group())
            .put("kind", r.kind())
            .put("version", r.version());
    String prefix = (r.group().isEmpty() ? "/api/" : "/apis/" + r.group() + "/") + r.version();
    String collection = prefix + (r.namespaced() ? "/namespaces/{namespace}/" : "/") + r.plural();
    ObjectNode paths = (ObjectNode) doc.get("paths");
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

    ObjectNode schemas = (ObjectNode) doc.get("components").get("schemas");
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
    List<String> parts = new java.util.ArrayList<>(List.of(r.group().split("\\.")));
    java.util.Collections.reverse(parts);
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
