package ai.gpustack.kvcache.api;

/** Quotes values in messages the way Go's {@code %q} does, so messages match Kubernetes'. */
public final class Quoting {
  private Quoting() {}

  /** {@code "value"} with backslash, quote and control characters escaped; null reads as empty. */
  public static String quote(String value) {
    if (value == null) {
      return "\"\"";
    }
    return escape(new StringBuilder(value.length() + 2).append('"'), value, value.length(), true)
        .append('"')
        .toString();
  }

  /**
   * As {@link #quote(String)}, keeping at most {@code max} characters of a value that came from a
   * tenant or an engine: a longer one ends in {@code …"} and says how long it was, so a condition,
   * an event or a terminal line stays short whatever was sent.
   */
  public static String quote(String value, int max) {
    if (value == null || value.length() <= max) {
      return quote(value);
    }
    return escape(new StringBuilder(max + 32).append('"'), value, max, true)
        .append("…\" (")
        .append(value.length())
        .append(" characters)")
        .toString();
  }

  /**
   * {@code value} as a line of text for a person, unquoted: control characters escaped (a terminal
   * never receives an escape sequence from a tenant's object), at most {@code max} characters, a
   * longer one ending in {@code …}.
   */
  public static String printable(String value, int max) {
    if (value == null) {
      return "";
    }
    StringBuilder s =
        escape(new StringBuilder(Math.min(value.length(), max) + 1), value, max, false);
    return value.length() > max ? s.append('…').toString() : s.toString();
  }

  /**
   * Appends {@code value}'s first {@code max} characters with control characters escaped, ASCII
   * ones as backslash-x and two hex digits, the invisible Unicode ones (C1 controls, bidirectional
   * overrides, line separators) as backslash-u and four, as Go's {@code %q} does; quotes and
   * backslashes too when {@code quoted}.
   */
  private static StringBuilder escape(StringBuilder s, String value, int max, boolean quoted) {
    int end = Math.min(value.length(), max);
    for (int i = 0; i < end; i++) {
      char c = value.charAt(i);
      switch (c) {
        case '\n' -> s.append("\\n");
        case '\t' -> s.append("\\t");
        case '\r' -> s.append("\\r");
        case '"', '\\' -> s.append(quoted ? "\\" : "").append(c);
        default -> {
          if (c < 0x20 || c == 0x7f) {
            s.append(String.format("\\x%02x", (int) c));
          } else if (invisible(c)) {
            s.append(String.format("\\u%04x", (int) c));
          } else {
            s.append(c);
          }
        }
      }
    }
    return s;
  }

  private static boolean invisible(char c) {
    int type = Character.getType(c);
    return type == Character.CONTROL
        || type == Character.FORMAT
        || type == Character.LINE_SEPARATOR
        || type == Character.PARAGRAPH_SEPARATOR;
  }
}
