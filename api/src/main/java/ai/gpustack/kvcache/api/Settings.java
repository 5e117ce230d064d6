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

  private static final List<SettingDefinition> CATALOG =
      List.of(KV_CACHE_DTYPE_OWNED, KV_CACHE_DTYPE_SPELLING_CHECK);

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

  /** The Settings in force given raw values by name (a missing name reads as its default). */
  public static EffectiveSettings effective(Map<String, String> rawByName) {
    return EffectiveSettings.builder()
        .kvCacheDtypeOwned(
            kvCacheDtypeOwned(Optional.ofNullable(rawByName.get(KV_CACHE_DTYPE_OWNED.name()))))
        .spellingCheck(
            spellingCheck(Optional.ofNullable(rawByName.get(KV_CACHE_DTYPE_SPELLING_CHECK.name()))))
        .build();
  }
}
