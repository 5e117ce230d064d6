package ai.gpustack.kvcache.spi;

/** What an engine's parser makes of one option token. */
public enum FlagReading {
  /** The token is the flag, exactly or by a spelling the parser normalises. */
  EXACT,
  /** The token is a unique prefix of the flag. */
  ABBREVIATION,
  /** The token is a prefix of several flags; the parser exits on it. */
  AMBIGUOUS,
  /** The parser knows no such flag. */
  UNKNOWN
}
