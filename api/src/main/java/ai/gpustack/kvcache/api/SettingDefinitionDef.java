package ai.gpustack.kvcache.api;

import java.util.List;
import java.util.Locale;
import java.util.Optional;
import org.immutables.value.Value;

/** One entry of the fixed Setting catalog: its name, default, meaning and the values it takes. */
@Value.Immutable
interface SettingDefinitionDef {
  String name();

  String defaultValue();

  String description();

  SettingKind kind();

  /** The values an {@link SettingKind#ENUM} takes. */
  List<String> allowedValues();

  /**
   * The environment variable that seeds it on first deploy: {@code GPUSTACK_<UPPER_SNAKE_NAME>}.
   */
  default String seedVariable() {
    return "GPUSTACK_" + name().toUpperCase(Locale.ROOT).replace('-', '_');
  }

  /** Why {@code value} is not acceptable, or empty when it is. */
  default Optional<String> refusal(String value) {
    switch (kind()) {
      case BOOLEAN:
        return Settings.parseBool(value).isPresent()
            ? Optional.empty()
            : Optional.of(
                "must be a boolean (true or false; also 1, t, T, TRUE, True, 0, f, F, FALSE,"
                    + " False)");
      case ENUM:
        return allowedValues().contains(value)
            ? Optional.empty()
            : Optional.of("must be one of " + String.join(", ", allowedValues()));
      case COUNT:
        return Settings.parseCount(value).isPresent()
            ? Optional.empty()
            : Optional.of("must be a whole number from 1 to " + Settings.MAX_COUNT);
      case LIST:
        return Settings.parseList(value).isPresent()
            ? Optional.empty()
            : Optional.of(
                "must be entries separated by commas, each without spaces (or empty for none)");
      default:
        throw new AssertionError(kind());
    }
  }

  @Value.Check
  default void check() {
    if (kind() == SettingKind.ENUM && !allowedValues().contains(defaultValue())) {
      throw new IllegalArgumentException(
          "setting "
              + Quoting.quote(name())
              + ": default "
              + Quoting.quote(defaultValue())
              + " is not among its allowed values "
              + allowedValues());
    }
  }
}
