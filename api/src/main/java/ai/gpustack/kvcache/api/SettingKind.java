package ai.gpustack.kvcache.api;

/** The type of value a Setting holds. */
public enum SettingKind {
  /**
   * Any form Go's {@code strconv.ParseBool} reads: 1 t T TRUE true True 0 f F FALSE false False.
   */
  BOOLEAN,
  /** One of the definition's allowed values, exactly as spelled. */
  ENUM,
  /** A whole number from 1 to 10,240, written in decimal. */
  COUNT,
  /** Entries separated by commas, each without spaces; empty is no entry. */
  LIST
}
