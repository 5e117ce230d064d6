package ai.gpustack.kvcache.spi;

import ai.gpustack.kvcache.api.Quoting;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;
import java.util.ServiceLoader;
import java.util.SortedSet;
import java.util.TreeSet;
import java.util.regex.Pattern;
import java.util.stream.Collectors;

/**
 * The engines on the classpath, found through {@link ServiceLoader}, or given explicitly in tests.
 * Ids are unique case-insensitively and resolved case-insensitively ({@code vLLM}, {@code vllm}).
 * Immutable and thread-safe.
 */
public final class EngineRegistry {
  private static final Pattern ID = Pattern.compile("[A-Za-z][A-Za-z0-9._-]*");

  /** The engine modules this project publishes, so a missing one is named by its artifact. */
  private static final Map<String, String> FIRST_PARTY =
      Map.of(
          "vllm", "ai.gpustack.kvcache:kvcache-engine-vllm",
          "sglang", "ai.gpustack.kvcache:kvcache-engine-sglang");

  private final Map<String, Engine> byKey;

  private EngineRegistry(List<Engine> engines) {
    Map<String, Engine> map = new LinkedHashMap<>();
    for (Engine engine : engines) {
      String id = engine.id();
      if (id == null || !ID.matcher(id).matches()) {
        throw new IllegalStateException(
            "engine provider "
                + engine.getClass().getName()
                + " has id "
                + (id == null ? "null" : Quoting.quote(id))
                + ": an engine id starts with a letter and holds only letters, digits, '.', '_'"
                + " and '-'");
      }
      Engine previous = map.put(key(id), engine);
      if (previous != null) {
        throw new IllegalStateException(
            "two engine providers claim the id "
                + Quoting.quote(id)
                + ": "
                + previous.getClass().getName()
                + " (id "
                + Quoting.quote(previous.id())
                + ") and "
                + engine.getClass().getName()
                + "; remove one of their jars from the classpath");
      }
    }
    List<Engine> sorted = new ArrayList<>(map.values());
    sorted.sort(Comparator.comparing(e -> key(e.id())));
    Map<String, Engine> ordered = new LinkedHashMap<>();
    sorted.forEach(e -> ordered.put(key(e.id()), e));
    this.byKey = ordered;
  }

  /** The engines {@link ServiceLoader} finds through the class loader that loaded this class. */
  public static EngineRegistry load() {
    return load(EngineRegistry.class.getClassLoader());
  }

  /** The engines {@link ServiceLoader} finds through {@code loader}. */
  public static EngineRegistry load(ClassLoader loader) {
    List<Engine> engines = new ArrayList<>();
    ServiceLoader.load(Engine.class, loader).forEach(engines::add);
    return new EngineRegistry(engines);
  }

  /** Exactly these engines; for tests and for embedding without {@link ServiceLoader}. */
  public static EngineRegistry of(List<? extends Engine> engines) {
    return new EngineRegistry(List.copyOf(engines));
  }

  /** The registered engines ordered by id, case-insensitively. */
  public List<Engine> engines() {
    return List.copyOf(byKey.values());
  }

  public boolean isEmpty() {
    return byKey.isEmpty();
  }

  /** The engine whose id equals {@code name} ignoring case. */
  public Optional<Engine> find(String name) {
    return name == null ? Optional.empty() : Optional.ofNullable(byKey.get(key(name)));
  }

  /**
   * The engine named {@code name}; otherwise an {@link UnknownEngineException} saying what to add.
   */
  public Engine resolve(String name) {
    return find(name).orElseThrow(() -> new UnknownEngineException(name, unknown(name)));
  }

  /** The refusal for an engine name nobody registered: the registered ones and the jar to add. */
  public String unknown(String name) {
    String known =
        byKey.isEmpty()
            ? "no engine module is on the classpath"
            : "registered engines: "
                + byKey.values().stream().map(Engine::id).collect(Collectors.joining(", "));
    String artifact = FIRST_PARTY.get(key(name == null ? "" : name));
    String fix =
        artifact != null
            ? "add " + artifact + " to the classpath"
            : "add the jar of an engine module whose provider has that id (see"
                + " docs/writing-an-engine.md)";
    return "engine "
        + Quoting.quote(String.valueOf(name))
        + " is not registered ("
        + known
        + "); "
        + fix;
  }

  /**
   * The spellings every engine registered here accepts at its newest table: what a Binding can
   * declare for any of them. It depends on which engine modules are on this classpath, not on the
   * engines a cluster runs, so it is not "portable" in general; docs/engines.md lists per engine.
   */
  public SortedSet<String> acceptedByEveryRegisteredEngine() {
    SortedSet<String> common = null;
    for (Engine engine : byKey.values()) {
      SortedSet<String> spellings = engine.dtypeSpellings().newest().spellings();
      if (common == null) {
        common = new TreeSet<>(spellings);
      } else {
        common.retainAll(spellings);
      }
    }
    return common == null ? new TreeSet<>() : common;
  }

  /** Whether any registered engine, at its newest table, accepts {@code dtype}. */
  public boolean anyAccepts(String dtype) {
    return byKey.values().stream().anyMatch(e -> e.dtypeSpellings().newest().accepts(dtype));
  }

  /**
   * The ids of the registered engines whose newest table accepts {@code dtype} as leaving the KV
   * cache at the model's own dtype ({@link Engine#leavesModelDtype}), in id order.
   */
  public List<String> leavingModelDtype(String dtype) {
    return byKey.values().stream()
        .filter(e -> e.leavesModelDtype(dtype, Optional.empty()))
        .map(Engine::id)
        .toList();
  }

  private static String key(String id) {
    return id.toLowerCase(Locale.ROOT);
  }
}
