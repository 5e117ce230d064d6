package ai.gpustack.kvcache.api;

import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;

/**
 * The Setting catalog and how each Setting is read. Settings live in namespace {@value #NAMESPACE};
 * the catalog is fixed.
 */
public final class Settings {
  /** Where Settings live. */
  public static final String NAMESPACE = "gpustack-system";

  /** On: the Binding's dtype is rendered on every attached engine and nobody else may set it. */
  public static final SettingDefinition KV_CACHE_DTYPE_OWNED =
      SettingDefinition.builder()
          .name("model-deployment-kv-cache-dtype-owned")
          .defaultValue("true")
          .kind(SettingKind.BOOLEAN)
          .description(
              "When true, every engine attached to a KV cache pool is started with its Binding's"
                  + " spec.domain.dtype as --kv-cache-dtype, and roles, Pods and new Bindings that"
                  + " would set another (or auto) are refused. When false, nothing is rendered and"
                  + " nothing is refused. A missing or unreadable value reads as true.")
          .build();

  /** How an engine's spelling table is applied to a Binding's dtype. */
  public static final SettingDefinition KV_CACHE_DTYPE_SPELLING_CHECK =
      SettingDefinition.builder()
          .name("kv-cache-dtype-spelling-check")
          .defaultValue(SpellingCheck.Enforce.name())
          .kind(SettingKind.ENUM)
          .addAllowedValues(
              SpellingCheck.Enforce.name(), SpellingCheck.Warn.name(), SpellingCheck.Off.name())
          .description(
              "Enforce refuses a deployment or injected Pod whose engine rejects its Binding's"
                  + " dtype; Warn admits it with a warning (for an engine build newer than its"
                  + " module's spelling table); Off does not check.")
          .build();

  /** The Pod Security Standard operator-built Pods meet. */
  public static final SettingDefinition POD_SECURITY =
      SettingDefinition.builder()
          .name("model-deployment-pod-security")
          .defaultValue(PodSecurity.restricted.name())
          .kind(SettingKind.ENUM)
          .addAllowedValues(PodSecurity.restricted.name(), PodSecurity.baseline.name())
          .description(
              "restricted renders every operator-built Pod to the restricted Pod Security Standard"
                  + " (non-root, no privilege escalation, all capabilities dropped, the runtime's"
                  + " default seccomp profile), so a namespace enforcing it admits them; baseline"
                  + " drops the non-root requirement for engine images that run as root. Either way"
                  + " no ServiceAccount token is mounted. A change re-renders every deployment.")
          .build();

  /** The registries operator-built Pods may pull from. */
  public static final SettingDefinition IMAGE_REGISTRIES =
      SettingDefinition.builder()
          .name("model-deployment-image-registries")
          .defaultValue("")
          .kind(SettingKind.LIST)
          .description(
              "Registries (and optionally repository paths) a ModelDeployment's images may come"
                  + " from, separated by commas, for example docker.io/vllm,nvcr.io/nvidia; an image"
                  + " without a registry is read as docker.io (docker.io/library for a bare name)."
                  + " Empty allows any. A deployment naming another image, its own or its engine's"
                  + " default, is refused.")
          .build();

  /** The most replicas one deployment's roles may ask for together. */
  public static final SettingDefinition MAX_REPLICAS =
      SettingDefinition.builder()
          .name("model-deployment-max-replicas")
          .defaultValue("256")
          .kind(SettingKind.COUNT)
          .description(
              "The most replicas one ModelDeployment's roles may ask for together, 1 to 10240:"
                  + " a deployment asking for more is refused when it is created or changed.")
          .build();

  /** The largest value a {@link SettingKind#COUNT} takes: 10 roles of 1,024 replicas. */
  public static final int MAX_COUNT = 10_240;

  private static final List<SettingDefinition> CATALOG =
      List.of(
          KV_CACHE_DTYPE_OWNED,
          KV_CACHE_DTYPE_SPELLING_CHECK,
          POD_SECURITY,
          IMAGE_REGISTRIES,
          MAX_REPLICAS);

  private static final Set<String> TRUE = Set.of("1", "t", "T", "TRUE", "true", "True");
  private static final Set<String> FALSE = Set.of("0", "f", "F", "FALSE", "false", "False");

  private Settings() {}

  /** Every Setting this project defines. */
  public static List<SettingDefinition> catalog() {
    return CATALOG;
  }

  public static Optional<SettingDefinition> find(String name) {
    return CATALOG.stream().filter(d -> d.name().equals(name)).findFirst();
  }

  /** Reads a boolean as Go's {@code strconv.ParseBool} does; empty when it is not one. */
  public static Optional<Boolean> parseBool(String value) {
    if (TRUE.contains(value)) {
      return Optional.of(true);
    }
    if (FALSE.contains(value)) {
      return Optional.of(false);
    }
    return Optional.empty();
  }

  /** A {@link SettingKind#COUNT}: a decimal whole number from 1 to {@value #MAX_COUNT}. */
  public static Optional<Integer> parseCount(String value) {
    if (value == null || !value.matches("[0-9]{1,5}")) {
      return Optional.empty();
    }
    int n = Integer.parseInt(value);
    return n >= 1 && n <= MAX_COUNT ? Optional.of(n) : Optional.empty();
  }

  /** A {@link SettingKind#LIST}: its entries, trimmed; empty when an entry is blank or spaced. */
  public static Optional<List<String>> parseList(String value) {
    if (value == null || value.isBlank()) {
      return Optional.of(List.of());
    }
    List<String> entries =
        java.util.Arrays.stream(value.split(",", -1)).map(String::strip).toList();
    return entries.stream().anyMatch(e -> e.isEmpty() || e.matches(".*\\s.*"))
        ? Optional.empty()
        : Optional.of(entries);
  }

  /**
   * Whether the dtype is owned, from the Setting's raw value. Missing, unreadable or not a boolean
   * reads as {@code true}: only an explicit false turns the rule off.
   */
  public static boolean kvCacheDtypeOwned(Optional<String> raw) {
    return raw.flatMap(Settings::parseBool).orElse(true);
  }

  /** The spelling check in force; anything but one of its values reads as the default. */
  public static SpellingCheck spellingCheck(Optional<String> raw) {
    return raw.filter(v -> KV_CACHE_DTYPE_SPELLING_CHECK.allowedValues().contains(v))
        .map(SpellingCheck::valueOf)
        .orElse(SpellingCheck.Enforce);
  }

  /**
   * The Settings in force given raw values by name. A missing name, or a value its kind does not
   * read, reads as its default: a stored Setting the webhook never saw cannot switch a rule off.
   */
  public static EffectiveSettings effective(Map<String, String> rawByName) {
    Optional<String> security = Optional.ofNullable(rawByName.get(POD_SECURITY.name()));
    return EffectiveSettings.builder()
        .kvCacheDtypeOwned(
            kvCacheDtypeOwned(Optional.ofNullable(rawByName.get(KV_CACHE_DTYPE_OWNED.name()))))
        .spellingCheck(
            spellingCheck(Optional.ofNullable(rawByName.get(KV_CACHE_DTYPE_SPELLING_CHECK.name()))))
        .podSecurity(
            security
                .filter(POD_SECURITY.allowedValues()::contains)
                .map(PodSecurity::valueOf)
                .orElse(PodSecurity.restricted))
        .addAllImageRegistries(
            Optional.ofNullable(rawByName.get(IMAGE_REGISTRIES.name()))
                .flatMap(Settings::parseList)
                .orElse(List.of()))
        .maxReplicas(
            Optional.ofNullable(rawByName.get(MAX_REPLICAS.name()))
                .flatMap(Settings::parseCount)
                .orElse(Integer.parseInt(MAX_REPLICAS.defaultValue())))
        .build();
  }
}
