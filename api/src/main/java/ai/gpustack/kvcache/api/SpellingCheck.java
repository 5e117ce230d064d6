package ai.gpustack.kvcache.api;

/**
 * What happens when an engine's spelling table rejects a Binding's dtype: {@code Enforce} refuses,
 * {@code Warn} admits with a warning (for an engine build newer than its module's table), {@code
 * Off} does not look.
 */
public enum SpellingCheck {
  Enforce,
  Warn,
  Off
}
