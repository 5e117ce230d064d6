package ai.gpustack.kvcache.api;

/** Quotes values in messages the way Go's {@code %q} does, so messages match Kubernetes'. */
public final class Quoting {
  private Quoting() {}

  /** {@code "value"} with backslash, quote and control characters escaped; null reads as empty. */
  public static String quote(String value) {
    if (value == null) {
      return "\"\"";
    }
    StringBuilder s = new StringBuilder(value.length() + 2).append('"');
    for (int i = 0; i < value.length(); i++) {
      char c = value.charAt(i);
      switch (c) {
        case '"' -> s.append("\\\"");
        case '\\' -> s.append("\\\\");
        case '\n' -> s.append("\\n");
        case '\t' -> s.append("\\t");
        case '\r' -> s.append("\\r");
        default -> {
          if (c < 0x20) {
            s.append(String.format("\\x%02x", (int) c));
          } else {
            s.append(c);
          }
        }
      }
    }
    return s.append('"').toString();
  }
}
