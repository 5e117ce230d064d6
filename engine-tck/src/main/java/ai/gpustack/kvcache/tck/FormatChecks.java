package ai.gpustack.kvcache.tck;

import ai.gpustack.kvcache.api.KvFormat;
import ai.gpustack.kvcache.spi.DtypeSpellings;
import ai.gpustack.kvcache.spi.Engine;
import ai.gpustack.kvcache.tck.ReleaseFacts.Release;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.MissingNode;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.TreeMap;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * The KV format of each spelling against what the release's code states: the element type it
 * assigns ({@code STR_DTYPE_TO_TORCH_DTYPE}, {@code if kv_cache_dtype == "s": dtype = torch.x}),
 * synonyms its help names ({@code fp8 (=fp8_e4m3)}), and a platform mapping where the code picks
 * the type per platform ({@code fnuz}, {@code fp8_dtype}).
 */
final class FormatChecks {
  private static final Pattern TORCH_ELEMENT =
      Pattern.compile(
          "torch\\.(float8_e4m3fn|float8_e5m2|bfloat16|float16|half|float4_e2m1fn_x2|int8)");
  private static final Pattern PLATFORM_DEPENDENT = Pattern.compile("fnuz|\\bfp8_dtype\\b");
  private static final Pattern ALIAS_IN_HELP = Pattern.compile("\\b(\\w+) \\(=(\\w+)\\)");

  /** The torch element type each KV format stores, where one names it. */
  private static final Map<KvFormat, String> ELEMENT =
      Map.ofEntries(
          Map.entry(KvFormat.BFLOAT16, "bfloat16"),
          Map.entry(KvFormat.FLOAT16, "float16"),
          Map.entry(KvFormat.FLOAT8_E4M3FN, "float8_e4m3fn"),
          Map.entry(KvFormat.FLOAT8_E4M3FN_PER_TOKEN_HEAD, "float8_e4m3fn"),
          Map.entry(KvFormat.MXFP8, "float8_e4m3fn"),
          Map.entry(KvFormat.FLOAT8_E5M2, "float8_e5m2"),
          Map.entry(KvFormat.INT8_PER_TOKEN_HEAD, "int8"),
          Map.entry(KvFormat.NVFP4, "float4_e2m1fn_x2"),
          Map.entry(KvFormat.NVFP4_4OVER6, "float4_e2m1fn_x2"),
          Map.entry(KvFormat.MXFP4, "float4_e2m1fn_x2"),
          Map.entry(KvFormat.FP4_E2M1_BLOCK16_E8M0, "float4_e2m1fn_x2"));

  private final String where;
  private final String flag;
  private final Release release;
  private final DtypeSpellings row;
  private final List<String> out = new ArrayList<>();

  private FormatChecks(String where, String flag, Release release, DtypeSpellings row) {
    this.where = where;
    this.flag = flag;
    this.release = release;
    this.row = row;
  }

  /** Every disagreement, release by release; releases without the flag or a row are skipped. */
  static List<String> problems(Engine engine, ReleaseFacts facts) {
    List<String> out = new ArrayList<>();
    for (Release r : facts.releases()) {
      Optional<DtypeSpellings> row = SpellingChecks.row(engine, r);
      if (r.dtypeFlag().isPresent() && row.isPresent()) {
        out.addAll(new FormatChecks(facts.where(r), engine.dtypeFlag(), r, row.get()).problems());
      }
    }
    return out;
  }

  private List<String> problems() {
    for (String s : row.spellings()) {
      Optional<KvFormat> format = row.format(s);
      if (format.isPresent() && !format.get().modelDependent()) {
        elementProblem(s, format.get());
        platformProblem(s);
      }
    }
    release.dtypeFlag().get().help().ifPresent(this::helpProblems);
    return out;
  }

  /** The one element type the release's code stores for {@code s} is the format's. */
  private void elementProblem(String s, KvFormat format) {
    Map<String, String> stated = statedElements(s);
    String element = ELEMENT.get(format);
    if (stated.size() == 1 && element != null && !stated.containsKey(element)) {
      Map.Entry<String, String> said = stated.entrySet().iterator().next();
      out.add(
          where
              + ": "
              + s
              + " stores torch."
              + said.getKey()
              + " ("
              + said.getValue()
              + "), but dtypeSpellings() for "
              + row.versions()
              + " maps it to "
              + format
              + ", whose element type is "
              + element);
    }
  }

  /** A spelling whose code picks the type per platform is mapped on some platform. */
  private void platformProblem(String s) {
    Optional<String> platformAt = platformStore(s);
    if (platformAt.isPresent()
        && row.platforms().stream().noneMatch(p -> p.formats().containsKey(s))) {
      out.add(
          where
              + ": "
              + s
              + " stores a platform's own FP8 type ("
              + platformAt.get()
              + "), but dtypeSpellings() for "
              + row.versions()
              + " maps it on no platform: add PlatformFormats for it");
    }
  }

  /** Synonyms the flag's help names ({@code fp8 (=fp8_e4m3)}) map to one format. */
  private void helpProblems(String help) {
    Matcher m = ALIAS_IN_HELP.matcher(help);
    while (m.find()) {
      Optional<KvFormat> a = row.format(m.group(1));
      Optional<KvFormat> b = row.format(m.group(2));
      if (a.isPresent() && b.isPresent() && !a.get().equals(b.get())) {
        out.add(
            where
                + ": the help of "
                + flag
                + " ("
                + release.dtypeFlag().get().helpAt().orElse("?")
                + ") says \""
                + m.group()
                + "\", but dtypeSpellings() for "
                + row.versions()
                + " maps "
                + m.group(1)
                + " to "
                + a.get()
                + " and "
                + m.group(2)
                + " to "
                + b.get());
      }
    }
  }

  /** Element type → where the code states it for {@code s}: its tables first, then branches. */
  private Map<String, String> statedElements(String s) {
    Map<String, String> stated = new TreeMap<>();
    release
        .dtypeMap()
        .ifPresent(
            maps ->
                maps.properties()
                    .forEach(
                        m -> {
                          for (JsonNode table : m.getValue()) {
                            JsonNode v = table.path("map").path(s);
                            if (v.isTextual()) {
                              element(v.asText())
                                  .ifPresent(
                                      t ->
                                          stated.putIfAbsent(
                                              t, m.getKey() + " at " + table.path("at").asText()));
                            }
                          }
                        }));
    for (JsonNode branch : branches(s)) {
      for (JsonNode store : branch.path("stores")) {
        element(store.asText()).ifPresent(t -> stated.putIfAbsent(t, branch.path("at").asText()));
      }
    }
    return stated;
  }

  /** Where the code last stores a platform's own type for {@code s}, if it does. */
  private Optional<String> platformStore(String s) {
    String platformAt = null;
    for (JsonNode branch : branches(s)) {
      for (JsonNode store : branch.path("stores")) {
        if (PLATFORM_DEPENDENT.matcher(store.asText()).find()) {
          platformAt = branch.path("at").asText() + " (" + store.asText() + ")";
        }
      }
    }
    return Optional.ofNullable(platformAt);
  }

  private JsonNode branches(String s) {
    return release.dtypeBranches().map(b -> b.path(s)).orElse(MissingNode.getInstance());
  }

  private static Optional<String> element(String expression) {
    Matcher m = TORCH_ELEMENT.matcher(expression);
    if (!m.matches()) {
      return Optional.empty();
    }
    return Optional.of(m.group(1).equals("half") ? "float16" : m.group(1));
  }
}
