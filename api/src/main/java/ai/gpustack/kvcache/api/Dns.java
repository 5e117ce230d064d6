package ai.gpustack.kvcache.api;

import java.util.regex.Pattern;

/** Kubernetes name rules, worded as the API server words them. */
public final class Dns {
  /** A DNS-1123 label: what a reuse domain and a role are named like. */
  public static final String LABEL_PATTERN = "^[a-z0-9]([-a-z0-9]*[a-z0-9])?$";

  public static final int LABEL_MAX_LENGTH = 63;

  private static final Pattern LABEL = Pattern.compile(LABEL_PATTERN);

  private Dns() {}

  /** Whether {@code value} is a DNS-1123 label. */
  public static boolean isLabel(String value) {
    return value != null && value.length() <= LABEL_MAX_LENGTH && LABEL.matcher(value).matches();
  }

  /** The API server's own wording of the label rule. */
  public static String labelRule() {
    return "must be a lowercase RFC 1123 label: at most 63 characters of a-z, 0-9 and '-',"
        + " starting and ending with an alphanumeric character";
  }
}
