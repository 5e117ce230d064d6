package ai.gpustack.kvcache.tck;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.util.ArrayList;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.TreeMap;

/**
 * An engine's {@code release-facts.json} as {@code tools/engine-facts/extract.py} writes it: every
 * release on PyPI, in version order, with what its own files say (the dtype flag's spellings, the
 * serve parser's flags, the flags that change the KV format, the dtype report), each fact with the
 * {@code file:line} inside that release's distribution. Immutable once read; the flag inventories,
 * stored as changes against the release before, are replayed here into each release's whole list.
 */
public final class ReleaseFacts {
  private final String resource;
  private final String engine;
  private final List<Release> releases;

  private ReleaseFacts(String resource, String engine, List<Release> releases) {
    this.resource = resource;
    this.engine = engine;
    this.releases = List.copyOf(releases);
  }

  /** The facts in {@code resource}, a classpath resource next to {@code anchor}. */
  public static ReleaseFacts read(Class<?> anchor, String resource) {
    try (InputStream in = anchor.getResourceAsStream(resource)) {
      if (in == null) {
        throw new IllegalStateException(
            resource
                + " is missing next to "
                + anchor.getName()
                + ": write it with tools/engine-facts/extract.py (docs/writing-an-engine.md)");
      }
      return parse(resource, new ObjectMapper().readTree(in));
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  static ReleaseFacts parse(String resource, JsonNode root) {
    List<Release> out = new ArrayList<>();
    Map<String, Flag> flags = new TreeMap<>();
    Map<String, JsonNode> carried = new LinkedHashMap<>();
    for (JsonNode r : root.path("releases")) {
      JsonNode inventory = r.path("inventory");
      inventory.path("removed").forEach(n -> flags.remove(n.asText()));
      for (String part : List.of("added", "changed")) {
        for (JsonNode f : inventory.path(part)) {
          Flag flag = Flag.of(f);
          flags.put(flag.name(), flag);
        }
      }
      List<String> unchanged = new ArrayList<>();
      r.path("unchangedSincePrevious").forEach(n -> unchanged.add(n.asText()));
      JsonNode dtype = r.path("dtypeFlag");
      JsonNode report = r.path("report");
      Map<String, JsonNode> holders =
          Map.of("help", dtype, "labels", report, "dtypeMap", r, "dtypeBranches", r);
      Map<String, JsonNode> current = new LinkedHashMap<>();
      for (Map.Entry<String, JsonNode> h : holders.entrySet()) {
        String field = h.getKey();
        JsonNode own = h.getValue().get(field);
        if (own != null) {
          current.put(field, own);
        } else if (unchanged.contains(field) && carried.containsKey(field)) {
          current.put(field, carried.get(field));
        }
      }
      carried.clear();
      carried.putAll(current);
      out.add(
          new Release(
              r.path("version").asText(),
              r.path("file").asText(""),
              r.path("yanked").asBoolean(false),
              dtype.isObject() || r.path("quantPolicy").isObject()
                  ? Optional.of(DtypeFlag.of(dtype, r.path("quantPolicy"), current.get("help")))
                  : Optional.empty(),
              inventory.has("count") ? Collections.unmodifiableMap(new TreeMap<>(flags)) : Map.of(),
              inventory.has("count") ? inventory.path("count").asInt() : -1,
              r.path("parser"),
              r.has("kvFlags") ? Optional.of(KvFlag.all(r.path("kvFlags"))) : Optional.empty(),
              report.isObject() ? Optional.of(report) : Optional.empty(),
              Optional.ofNullable(current.get("dtypeMap")).filter(JsonNode::isObject),
              Optional.ofNullable(current.get("dtypeBranches")).filter(JsonNode::isObject)));
    }
    return new ReleaseFacts(resource, root.path("engine").asText("?"), out);
  }

  /** The resource name, {@code release-facts.json}, for messages. */
  public String resource() {
    return resource;
  }

  /** The PyPI project name the file is about ({@code vllm}). */
  public String engine() {
    return engine;
  }

  /** Every release on PyPI, oldest first. */
  public List<Release> releases() {
    return releases;
  }

  /**
   * How a message names {@code release}: the release with its distribution file, then this file.
   */
  String where(Release release) {
    return release.describe(engine) + ", " + resource;
  }

  /** The release numbered {@code version}; empty when PyPI has none. */
  public Optional<Release> release(String version) {
    return releases.stream().filter(r -> r.version().equals(version)).findFirst();
  }

  /**
   * One release: its version, the distribution file read, what its dtype flag accepts, its serve
   * parser's flags by canonical name, and the raw facts the kit compares without modelling them.
   *
   * @param flagCount the number of flags the file says the release has, or -1 when none were read
   * @param parser {@code {"class": ..., "at": ..., ...}}: the parser class and its dialect facts
   * @param kvFlags the flags that change the KV format, or empty when not read for this engine
   * @param report the dtype report's facts (metric or server-info routes), empty when it has none
   * @param dtypeMap spelling → torch dtype tables the release's code states, carried forward
   * @param dtypeBranches {@code if kv_cache_dtype == "s": ...} assignments, carried forward
   */
  public record Release(
      String version,
      String file,
      boolean yanked,
      Optional<DtypeFlag> dtypeFlag,
      Map<String, Flag> flags,
      int flagCount,
      JsonNode parser,
      Optional<List<KvFlag>> kvFlags,
      Optional<JsonNode> report,
      Optional<JsonNode> dtypeMap,
      Optional<JsonNode> dtypeBranches) {
    /** {@code vllm 0.4.3 (vllm-0.4.3.tar.gz)}: how messages name it. */
    public String describe(String engine) {
      return engine + " " + version + " (" + file + (yanked ? ", yanked" : "") + ")";
    }

    /** Every option string its parser knows (names, aliases, negative forms) with its arity. */
    public Map<String, String> optionStrings() {
      Map<String, String> out = new TreeMap<>();
      for (Flag f : flags.values()) {
        out.put(f.name(), f.arity());
        f.aliases().forEach(a -> out.put(a, f.arity()));
        f.negative().ifPresent(n -> out.put(n, "NONE"));
      }
      out.keySet().removeIf(o -> !o.startsWith("--"));
      return out;
    }

    /** Whether its parser reads {@code --kv_cache_dtype} as {@code --kv-cache-dtype}. */
    public boolean underscoresAsDashes() {
      return parser.has("underscoresAsDashes")
          ? parser.path("underscoresAsDashes").asBoolean()
          : parser.path("class").asText().equals("FlexibleArgumentParser");
    }

    /** Whether its parser reads {@code --flag.member v}; empty where the file does not say. */
    public Optional<Boolean> dottedMembers() {
      if (parser.has("dotted")) {
        return Optional.of(parser.path("dotted").asBoolean());
      }
      if (parser.has("dottedMembersAt")) {
        return Optional.of(!parser.path("dottedMembersAt").isNull());
      }
      return underscoresAsDashes() ? Optional.empty() : Optional.of(false);
    }

    /** Whether its parser resolves unique prefixes of long options. */
    public boolean abbreviations() {
      return parser.has("allowAbbrev")
          ? parser.path("allowAbbrev").asBoolean()
          : !parser.path("allowAbbrevOff").asBoolean(false);
    }
  }

  /**
   * The dtype flag of one release: the spellings its parser takes, where they are listed, how they
   * are enforced, the flag's help where known, and the spellings its code refuses once it starts.
   *
   * @param refusedAtStartup spelling → the {@code file:line} and message of the code that refuses
   *     it after parsing ({@code raise ValueError("... deprecated ...")})
   */
  public record DtypeFlag(
      List<String> spellings,
      String spellingsAt,
      String enforcedBy,
      Optional<String> validatorAt,
      Optional<String> help,
      Optional<String> helpAt,
      Map<String, List<At>> refusedAtStartup) {
    static DtypeFlag of(JsonNode dtype, JsonNode quantPolicy, JsonNode help) {
      List<String> spellings = new ArrayList<>();
      if (dtype.isObject()) {
        dtype.path("spellings").forEach(s -> spellings.add(s.asText()));
      } else {
        // LMDeploy: --quant-policy values, names case-folded by its parser
        quantPolicy.path("accepted").fieldNames().forEachRemaining(spellings::add);
        spellings.removeIf(s -> !s.equals(s.toLowerCase(java.util.Locale.ROOT)));
      }
      Map<String, List<At>> refused = new TreeMap<>();
      dtype
          .path("refusedAtStartup")
          .properties()
          .forEach(
              e -> {
                List<At> at = new ArrayList<>();
                e.getValue().forEach(n -> at.add(At.of(n)));
                refused.put(e.getKey(), List.copyOf(at));
              });
      JsonNode holder = dtype.isObject() ? dtype : quantPolicy;
      return new DtypeFlag(
          List.copyOf(spellings),
          holder.path("spellingsAt").asText(holder.path("at").asText("")),
          dtype.isObject() ? dtype.path("enforcedBy").asText("") : "argparse",
          Optional.ofNullable(dtype.get("validatorAt")).map(JsonNode::asText),
          Optional.ofNullable(help).filter(JsonNode::isTextual).map(JsonNode::asText),
          Optional.ofNullable(dtype.get("at")).map(JsonNode::asText),
          Collections.unmodifiableMap(refused));
    }

    /** Whether argparse takes any value and the release's own validator decides after parsing. */
    public boolean checkedAfterParsing() {
      return enforcedBy.startsWith("after parsing");
    }
  }

  /** A {@code file:line} inside a release's distribution, with the text found there. */
  public record At(String at, String text) {
    static At of(JsonNode n) {
      return new At(n.path("at").asText(), n.path("text").asText(""));
    }

    /** The file part of {@code at}. */
    public String file() {
      return ReleaseFacts.file(at);
    }
  }

  /**
   * One long option of a release's serve parser: its canonical name, arity ({@code NONE}, {@code
   * ONE}, {@code OPTIONAL}, {@code ONE_OR_MORE}, {@code ZERO_OR_MORE}), where it was read, its
   * aliases and its {@code --no-} form.
   */
  public record Flag(
      String name, String arity, String at, List<String> aliases, Optional<String> negative) {
    static Flag of(JsonNode f) {
      List<String> aliases = new ArrayList<>();
      f.path("aliases").forEach(a -> aliases.add(a.asText()));
      Optional<String> negative =
          Optional.ofNullable(f.get("negative"))
              .or(() -> Optional.ofNullable(f.get("inverse")))
              .filter(JsonNode::isTextual)
              .map(JsonNode::asText);
      return new Flag(
          f.path("name").asText(),
          f.path("arity").asText(),
          f.path("at").asText(""),
          List.copyOf(aliases),
          negative);
    }
  }

  /**
   * A flag the extraction found beside the dtype flag that changes (or, by its name, may change)
   * the KV representation: {@code why} is {@code listed by the project} for the flags the tool
   * always looks for, else why it was picked out for review.
   */
  public record KvFlag(String flag, String at, String why) {
    static List<KvFlag> all(JsonNode list) {
      List<KvFlag> out = new ArrayList<>();
      list.forEach(
          k ->
              out.add(
                  new KvFlag(
                      k.path("flag").asText(), k.path("at").asText(""), k.path("why").asText())));
      return List.copyOf(out);
    }

    /** Whether the tool looks for this flag in every release, rather than by its name. */
    public boolean listed() {
      return why.equals("listed by the project");
    }
  }

  /** {@code vllm/config/cache.py} of {@code vllm/config/cache.py:44}. */
  static String file(String at) {
    int colon = at.lastIndexOf(':');
    return colon > 0 && at.substring(colon + 1).chars().allMatch(Character::isDigit)
        ? at.substring(0, colon)
        : at;
  }
}
