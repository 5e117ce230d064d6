package ai.gpustack.kvcache.operator.migrate;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Optional;

/**
 * A migration as recorded on the old Binding (annotation {@value #ANNOTATION}): what it moves to,
 * the manifest each deployment is created from (a recreated deployment exists nowhere else between
 * its deletion and its creation), the Setting value to restore, and how many steps completed.
 * Immutable.
 */
public record MigrationRecord(
    String dtype,
    String newBinding,
    String domain,
    Strategy strategy,
    boolean includeInjected,
    Optional<String> settingWas,
    Map<String, JsonNode> deployments,
    int completed) {
  public static final String ANNOTATION = "kvcache.gpustack.ai/migration";
  private static final ObjectMapper JSON = new ObjectMapper();

  public MigrationRecord {
    deployments = java.util.Collections.unmodifiableMap(new LinkedHashMap<>(deployments));
  }

  MigrationRecord withCompleted(int steps) {
    return new MigrationRecord(
        dtype, newBinding, domain, strategy, includeInjected, settingWas, deployments, steps);
  }

  MigrationRecord withSettingWas(String value) {
    return new MigrationRecord(
        dtype,
        newBinding,
        domain,
        strategy,
        includeInjected,
        Optional.of(value),
        deployments,
        completed);
  }

  /** The annotation's value. */
  String json() {
    ObjectNode root = JSON.createObjectNode();
    root.put("dtype", dtype)
        .put("newBinding", newBinding)
        .put("domain", domain)
        .put("strategy", strategy.word())
        .put("includeInjected", includeInjected);
    settingWas.ifPresent(v -> root.put("settingWas", v));
    ObjectNode manifests = root.putObject("deployments");
    deployments.forEach(manifests::set);
    root.put("completed", completed);
    try {
      return JSON.writeValueAsString(root);
    } catch (JsonProcessingException e) {
      throw new IllegalStateException(e);
    }
  }

  /** The record in annotation value {@code json}; see {@link #read}. */
  public static MigrationRecord parse(String json) {
    return read(Optional.of(json)).orElseThrow();
  }

  /**
   * The record in annotation value {@code json}; empty when there is none, and an {@link
   * IllegalArgumentException} naming the annotation when it does not read as one.
   */
  static Optional<MigrationRecord> read(Optional<String> json) {
    if (json.isEmpty()) {
      return Optional.empty();
    }
    try {
      JsonNode root = JSON.readTree(json.get());
      Strategy strategy =
          Strategy.of(root.path("strategy").asText())
              .orElseThrow(() -> new IllegalArgumentException("no strategy"));
      Map<String, JsonNode> deployments = new LinkedHashMap<>();
      root.path("deployments").properties().forEach(e -> deployments.put(e.getKey(), e.getValue()));
      for (String field : new String[] {"dtype", "newBinding", "domain"}) {
        if (root.path(field).asText("").isEmpty()) {
          throw new IllegalArgumentException("no " + field);
        }
      }
      return Optional.of(
          new MigrationRecord(
              root.path("dtype").asText(),
              root.path("newBinding").asText(),
              root.path("domain").asText(),
              strategy,
              root.path("includeInjected").asBoolean(false),
              root.hasNonNull("settingWas")
                  ? Optional.of(root.path("settingWas").asText())
                  : Optional.empty(),
              deployments,
              root.path("completed").asInt(0)));
    } catch (JsonProcessingException | IllegalArgumentException e) {
      throw new IllegalArgumentException(
          "the annotation "
              + ANNOTATION
              + " does not read as a migration record ("
              + e.getMessage().lines().findFirst().orElse("")
              + "); remove it to plan afresh",
          e);
    }
  }
}
