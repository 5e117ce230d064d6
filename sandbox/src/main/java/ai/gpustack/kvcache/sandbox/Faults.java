package ai.gpustack.kvcache.sandbox;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Random;
import java.util.TreeMap;
import java.util.concurrent.ConcurrentSkipListMap;
import java.util.concurrent.atomic.AtomicLong;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * The faults the sandbox API server injects into what its clients see, as {@code kvcache sandbox
 * --faults SPEC} reads them: a share of requests answered with an error the API server gives under
 * load or contention, a delay before each answer, watches closed after a while, and watches
 * answered {@code 410 Gone} (the resource version is too old) as after a compaction. Off unless
 * configured. The sandbox's own stand-ins (kubelet, ReplicaSet controller), whose user agent is
 * {@value #EXEMPT_AGENT}, are spared: the faults are for the clients under test. Thread-safe.
 */
public final class Faults {
  /** The user agent of the sandbox's own client; its requests see no faults. */
  public static final String EXEMPT_AGENT = "kvcache-sandbox";

  private static final Pattern RANGE = Pattern.compile("(\\d+)(?:-(\\d+))?ms");
  private static final Pattern DURATION = Pattern.compile("(\\d+)(ms|s|m)");
  private static final List<Integer> KNOWN_CODES = List.of(409, 429, 500, 503);

  private final double rate;
  private final List<Integer> codes;
  private final long latencyMin;
  private final long latencyMax;
  private final Optional<Duration> watchDrop;
  private final double expired;
  private final Random random;
  private final Map<String, AtomicLong> injected = new ConcurrentSkipListMap<>();

  private Faults(
      double rate,
      List<Integer> codes,
      long latencyMin,
      long latencyMax,
      Optional<Duration> watchDrop,
      double expired,
      Random random) {
    this.rate = rate;
    this.codes = List.copyOf(codes);
    this.latencyMin = latencyMin;
    this.latencyMax = latencyMax;
    this.watchDrop = watchDrop;
    this.expired = expired;
    this.random = random;
  }

  /** No faults. */
  public static Faults none() {
    return new Faults(0, List.of(), 0, 0, Optional.empty(), 0, new Random());
  }

  /**
   * Reads {@code spec}: comma-separated {@code key=value} pairs, {@code codes} taking a list
   * ({@code rate=0.05,codes=409,429,500,503,latency=0-200ms,watch-drop=30s,expired=0.01,seed=7}).
   * Throws {@link IllegalArgumentException} naming the key, the value and what it takes.
   */
  public static Faults parse(String spec) {
    Map<String, List<String>> values = pairs(spec);
    double rate = share(values, "rate");
    double expired = share(values, "expired");
    List<Integer> codes = codes(values);
    Latency latency = latency(values);
    Optional<Duration> drop = watchDrop(values);
    Random random = random(values);
    checkKeys(values);
    return new Faults(rate, codes, latency.min(), latency.max(), drop, expired, random);
  }

  /** The values given per key; a token without {@code =} continues the list of {@code codes}. */
  private static Map<String, List<String>> pairs(String spec) {
    Map<String, List<String>> values = new TreeMap<>();
    String key = null;
    for (String token : spec.split(",")) {
      token = token.strip();
      if (token.isEmpty()) {
        continue;
      }
      int eq = token.indexOf('=');
      if (eq >= 0) {
        key = token.substring(0, eq).strip();
        values.computeIfAbsent(key, k -> new ArrayList<>()).add(token.substring(eq + 1).strip());
      } else if ("codes".equals(key)) {
        values.get(key).add(token);
      } else {
        throw new IllegalArgumentException(
            "--faults: \"" + token + "\" is not key=value (only codes takes a list)");
      }
    }
    return values;
  }

  private static List<Integer> codes(Map<String, List<String>> values) {
    List<Integer> codes = new ArrayList<>();
    for (String code : values.getOrDefault("codes", List.of("500", "503"))) {
      try {
        int c = Integer.parseInt(code);
        if (!KNOWN_CODES.contains(c)) {
          throw new NumberFormatException();
        }
        codes.add(c);
      } catch (NumberFormatException e) {
        throw new IllegalArgumentException(
            "--faults: codes="
                + code
                + ": the sandbox answers "
                + KNOWN_CODES
                + " (410 is expired=)");
      }
    }
    return codes;
  }

  /** A delay drawn from {@code [min, max]} milliseconds. */
  private record Latency(long min, long max) {}

  /** No delay when not given. */
  private static Latency latency(Map<String, List<String>> values) {
    if (!values.containsKey("latency")) {
      return new Latency(0, 0);
    }
    String latency = one(values, "latency");
    Matcher m = RANGE.matcher(latency);
    if (!m.matches()) {
      throw new IllegalArgumentException(
          "--faults: latency=" + latency + ": use a range in milliseconds, such as 0-200ms");
    }
    long min = Long.parseLong(m.group(1));
    long max = m.group(2) == null ? min : Long.parseLong(m.group(2));
    if (max < min) {
      throw new IllegalArgumentException(
          "--faults: latency=" + latency + ": the range ends before it starts");
    }
    return new Latency(min, max);
  }

  private static Optional<Duration> watchDrop(Map<String, List<String>> values) {
    if (!values.containsKey("watch-drop")) {
      return Optional.empty();
    }
    String after = one(values, "watch-drop");
    Matcher m = DURATION.matcher(after);
    if (!m.matches() || Long.parseLong(m.group(1)) == 0) {
      throw new IllegalArgumentException(
          "--faults: watch-drop=" + after + ": use a duration such as 500ms, 30s or 2m");
    }
    long n = Long.parseLong(m.group(1));
    return Optional.of(
        switch (m.group(2)) {
          case "ms" -> Duration.ofMillis(n);
          case "s" -> Duration.ofSeconds(n);
          default -> Duration.ofMinutes(n);
        });
  }

  /** Seeded when {@code seed} is given, so a run's faults can be replayed. */
  private static Random random(Map<String, List<String>> values) {
    if (!values.containsKey("seed")) {
      return new Random();
    }
    try {
      return new Random(Long.parseLong(one(values, "seed")));
    } catch (NumberFormatException e) {
      throw new IllegalArgumentException(
          "--faults: seed=" + one(values, "seed") + ": use a whole number");
    }
  }

  private static void checkKeys(Map<String, List<String>> values) {
    for (String k : values.keySet()) {
      if (!List.of("rate", "codes", "latency", "watch-drop", "expired", "seed").contains(k)) {
        throw new IllegalArgumentException(
            "--faults: unknown key "
                + k
                + "; the keys are rate, codes, latency, watch-drop, expired and seed");
      }
    }
  }

  private static String one(Map<String, List<String>> values, String key) {
    List<String> v = values.get(key);
    if (v.size() != 1) {
      throw new IllegalArgumentException("--faults: " + key + " is given " + v.size() + " times");
    }
    return v.get(0);
  }

  private static double share(Map<String, List<String>> values, String key) {
    if (!values.containsKey(key)) {
      return 0;
    }
    String value = one(values, key);
    try {
      double share = Double.parseDouble(value);
      if (share < 0 || share > 1) {
        throw new NumberFormatException();
      }
      return share;
    } catch (NumberFormatException e) {
      throw new IllegalArgumentException(
          "--faults: " + key + "=" + value + ": use a share between 0 and 1, such as 0.05");
    }
  }

  /** Whether any fault is configured. */
  public boolean active() {
    return rate > 0 || latencyMax > 0 || watchDrop.isPresent() || expired > 0;
  }

  /** Whether a request from {@code userAgent} may see faults. */
  boolean applies(String userAgent) {
    return active() && (userAgent == null || !userAgent.startsWith(EXEMPT_AGENT));
  }

  /**
   * The error to answer a request with instead, if one falls on it: {@code 409} only on writes that
   * can conflict (PUT, PATCH), as the API server gives it.
   */
  synchronized Optional<Integer> error(String method) {
    if (rate == 0 || codes.isEmpty() || random.nextDouble() >= rate) {
      return Optional.empty();
    }
    boolean update = method.equals("PUT") || method.equals("PATCH");
    List<Integer> fitting = codes.stream().filter(c -> c != 409 || update).toList();
    if (fitting.isEmpty()) {
      return Optional.empty();
    }
    int code = fitting.get(random.nextInt(fitting.size()));
    count(Integer.toString(code));
    return Optional.of(code);
  }

  /** How long to hold a request before answering it, in milliseconds. */
  synchronized long latency() {
    if (latencyMax == 0) {
      return 0;
    }
    long delay = latencyMin + (long) (random.nextDouble() * (latencyMax - latencyMin + 1));
    if (delay > 0) {
      count("latency");
    }
    return delay;
  }

  /** Whether a watch from a resource version is answered 410 Gone instead. */
  synchronized boolean expire() {
    boolean expire = expired > 0 && random.nextDouble() < expired;
    if (expire) {
      count("410");
    }
    return expire;
  }

  /** After how long a watch is closed, if watches are dropped. */
  Optional<Duration> watchDrop() {
    return watchDrop;
  }

  void dropped() {
    count("watch-drop");
  }

  private void count(String what) {
    injected.computeIfAbsent(what, k -> new AtomicLong()).incrementAndGet();
  }

  /** The faults injected so far, by class: an HTTP code, {@code latency} or {@code watch-drop}. */
  public Map<String, Long> injected() {
    Map<String, Long> out = new TreeMap<>();
    injected.forEach((k, v) -> out.put(k, v.get()));
    return out;
  }

  /** Every fault injected so far. */
  public long total() {
    return injected.values().stream().mapToLong(AtomicLong::get).sum();
  }

  /** The Status body the API server answers {@code code} with. */
  static String status(int code) {
    String reason;
    String message;
    switch (code) {
      case 409 -> {
        reason = "Conflict";
        message =
            "Operation cannot be fulfilled: the object has been modified; please apply your changes"
                + " to the latest version and try again";
      }
      case 410 -> {
        reason = "Expired";
        message = "too old resource version";
      }
      case 429 -> {
        reason = "TooManyRequests";
        message = "the server has received too many requests and has asked us to try again later";
      }
      case 503 -> {
        reason = "ServiceUnavailable";
        message = "the server is currently unable to handle the request";
      }
      default -> {
        reason = "InternalError";
        message = "Internal error occurred: injected by the sandbox (--faults)";
      }
    }
    return "{\"kind\":\"Status\",\"apiVersion\":\"v1\",\"metadata\":{},\"status\":\"Failure\","
        + "\"message\":\""
        + message
        + "\",\"reason\":\""
        + reason
        + "\",\"code\":"
        + code
        + "}";
  }

  @Override
  public String toString() {
    if (!active()) {
      return "none";
    }
    List<String> parts = new ArrayList<>();
    if (rate > 0) {
      parts.add("rate=" + rate + " codes=" + codes);
    }
    if (latencyMax > 0) {
      parts.add("latency=" + latencyMin + "-" + latencyMax + "ms");
    }
    watchDrop.ifPresent(d -> parts.add("watch-drop=" + d.toMillis() + "ms"));
    if (expired > 0) {
      parts.add("expired=" + expired);
    }
    return String.join(" ", parts);
  }
}
