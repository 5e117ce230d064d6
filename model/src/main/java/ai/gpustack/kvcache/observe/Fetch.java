package ai.gpustack.kvcache.observe;

import java.util.Optional;

/**
 * What came back from one engine endpoint: the body of a successful answer, or why there is none
 * ({@code HTTP 404}, {@code HTTP 302: a redirect, not followed}, {@code timed out after 5000 ms},
 * {@code the answer is larger than 262144 bytes}).
 */
public record Fetch(Optional<String> body, String detail) {
  public static Fetch answered(String body) {
    return new Fetch(Optional.of(body), "answered");
  }

  public static Fetch failed(String why) {
    return new Fetch(Optional.empty(), why);
  }
}
