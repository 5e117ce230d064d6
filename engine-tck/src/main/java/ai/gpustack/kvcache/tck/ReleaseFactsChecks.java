package ai.gpustack.kvcache.tck;

import ai.gpustack.kvcache.api.Dtype;
import ai.gpustack.kvcache.api.KvFormat;
import ai.gpustack.kvcache.api.RoleKind;
import ai.gpustack.kvcache.spi.ArgGroup;
import ai.gpustack.kvcache.spi.ArgvDialect;
import ai.gpustack.kvcache.spi.CacheAttachment;
import ai.gpustack.kvcache.spi.DtypeReport;
import ai.gpustack.kvcache.spi.DtypeSpellings;
import ai.gpustack.kvcache.spi.Engine;
import ai.gpustack.kvcache.spi.EngineVersion;
import ai.gpustack.kvcache.spi.FlagInventory;
import ai.gpustack.kvcache.spi.FlagReader;
import ai.gpustack.kvcache.spi.FlagReading;
import ai.gpustack.kvcache.spi.FlagSpec;
import ai.gpustack.kvcache.spi.PlatformFormats;
import ai.gpustack.kvcache.spi.ReadToken;
import ai.gpustack.kvcache.spi.VersionRange;
import ai.gpustack.kvcache.spi.Versioned;
import ai.gpustack.kvcache.tck.ReleaseFacts.At;
import ai.gpustack.kvcache.tck.ReleaseFacts.DtypeFlag;
import ai.gpustack.kvcache.tck.ReleaseFacts.KvFlag;
import ai.gpustack.kvcache.tck.ReleaseFacts.Release;
import com.fasterxml.jackson.databind.JsonNode;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * A module's tables against its {@code release-facts.json}, release by release. Each check returns
 * one line per disagreement naming the release and its distribution file, the data file, the
 * spelling or flag and the {@code file:line} in the release, and the table to change; empty when
 * they agree.
 */
final class ReleaseFactsChecks {
  private ReleaseFactsChecks() {}

  /** Words that mark a source as a guess rather than a file read. */
  static final Pattern GUESS =
      Pattern.compile("\\b(not pinned|not read|inferred)\\b", Pattern.CASE_INSENSITIVE);

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

  /** Versions ascend and every inventory replays to the count the file states. */
  static List<String> fileProblems(ReleaseFacts facts) {
    List<String> out = new ArrayList<>();
    Release previous = null;
    for (Release r : facts.releases()) {
      if (previous != null
          && EngineVersion.parse(previous.version()).compareTo(EngineVersion.parse(r.version()))
              >= 0) {
        out.add(
            facts.resource()
                + " lists "
                + r.version()
                + " after "
                + previous.version()
                + ": rerun"
                + " tools/engine-facts/extract.py, which writes releases in version order");
      }
      if (r.flagCount() >= 0 && r.flags().size() != r.flagCount()) {
        out.add(
            facts.resource()
                + ": the inventory of "
                + r.version()
                + " replays to "
                + r.flags().size()
                + " flags, but the file says "
                + r.flagCount()
                + ": the file was edited by hand; rerun tools/engine-facts/extract.py");
      }
      previous = r;
    }
    return out;
  }

  /** Each release's accepted spellings against the row of {@code dtypeSpellings()} holding it. */
  static List<String> spellingProblems(Engine engine, ReleaseFacts facts) {
    List<String> out = new ArrayList<>();
    String flag = engine.dtypeFlag();
    for (Release r : facts.releases()) {
      Optional<DtypeSpellings> row = row(engine, r);
      String where = where(facts, r);
      if (r.dtypeFlag().isEmpty()) {
        row.ifPresent(
            e ->
                out.add(
                    where
                        + ": the release's serve parser has no "
                        + flag
                        + ", but dtypeSpellings() has a row for it ("
                        + e.versions()
                        + "): start the table at the first release with the flag"));
        continue;
      }
      DtypeFlag d = r.dtypeFlag().get();
      if (row.isEmpty()) {
        out.add(
            where
                + ": "
                + flag
                + " accepts "
                + String.join(" ", d.spellings())
                + " ("
                + d.spellingsAt()
                + "), but no row of dtypeSpellings() holds "
                + r.version()
                + ": add one");
        continue;
      }
      DtypeSpellings e = row.get();
      Set<String> expected = new TreeSet<>(d.spellings());
      expected.removeAll(d.refusedAtStartup().keySet());
      // a value a Binding cannot spell (uppercase, too long) is not the module's to accept
      expected.removeIf(s -> !s.equals(lower(s)) || s.length() > Dtype.MAX_LENGTH);
      for (String s : expected) {
        if (!e.accepts(s)) {
          out.add(
              where
                  + ": "
                  + flag
                  + " accepts "
                  + s
                  + " ("
                  + d.spellingsAt()
                  + "), but dtypeSpellings() for "
                  + e.versions()
                  + " does not: an over-refusal. Add "
                  + s
                  + " to that row, or start a row at "
                  + r.version());
        }
      }
      for (String s : e.spellings()) {
        if (expected.contains(s)) {
          continue;
        }
        List<At> refused = d.refusedAtStartup().getOrDefault(s, List.of());
        out.add(
            where
                + ": dtypeSpellings() for "
                + e.versions()
                + " accepts "
                + s
                + ", which the release "
                + (refused.isEmpty()
                    ? "does not list for " + flag + " (" + d.spellingsAt() + ")"
                    : "lists but refuses once it starts ("
                        + refused.get(0).at()
                        + ": \""
                        + refused.get(0).text()
                        + "\")")
                + ": its Pods would fail. Remove "
                + s
                + " from that row, or end the row before "
                + r.version());
      }
      for (Map.Entry<String, List<At>> refused : d.refusedAtStartup().entrySet()) {
        String file = refused.getValue().get(0).file();
        if (!e.source().contains(file)) {
          out.add(
              where
                  + ": the release lists "
                  + refused.getKey()
                  + " for "
                  + flag
                  + " but refuses it once it starts ("
                  + refused.getValue().get(0).at()
                  + "); the source of dtypeSpellings() for "
                  + e.versions()
                  + " should say so, naming "
                  + file);
        }
      }
      if (d.checkedAfterParsing()) {
        d.validatorAt()
            .map(ReleaseFacts::file)
            .filter(file -> !e.source().contains(file))
            .ifPresent(
                file ->
                    out.add(
                        where
                            + ": argparse takes any "
                            + flag
                            + " value here and "
                            + d.validatorAt().get()
                            + " checks it after parsing; the source of dtypeSpellings() for "
                            + e.versions()
                            + " should name "
                            + file));
      }
    }
    for (Map.Entry<DtypeSpellings, List<Release>> group : byRow(engine, facts).entrySet()) {
      DtypeSpellings e = group.getKey();
      Set<String> files = new LinkedHashSet<>();
      group
          .getValue()
          .forEach(r -> files.add(ReleaseFacts.file(r.dtypeFlag().get().spellingsAt())));
      out.addAll(sourceNames(facts, "dtypeSpellings()", e, group.getValue().get(0), files));
    }
    return out;
  }

  /**
   * The KV format of each spelling against what the release's code states: the element type it
   * assigns ({@code STR_DTYPE_TO_TORCH_DTYPE}, {@code if kv_cache_dtype == "s": dtype = torch.x}),
   * synonyms its help names ({@code fp8 (=fp8_e4m3)}), and a platform mapping where the code picks
   * the type per platform ({@code fnuz}, {@code fp8_dtype}).
   */
  static List<String> formatProblems(Engine engine, ReleaseFacts facts) {
    List<String> out = new ArrayList<>();
    for (Release r : facts.releases()) {
      Optional<DtypeSpellings> row = row(engine, r);
      if (r.dtypeFlag().isEmpty() || row.isEmpty()) {
        continue;
      }
      DtypeSpellings e = row.get();
      String where = where(facts, r);
      for (String s : e.spellings()) {
        Optional<KvFormat> format = e.format(s);
        if (format.isEmpty() || format.get().modelDependent()) {
          continue;
        }
        Map<String, String> stated = new TreeMap<>();
        r.dtypeMap()
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
                                                  t,
                                                  m.getKey() + " at " + table.path("at").asText()));
                                }
                              }
                            }));
        boolean platformDependent = false;
        String platformAt = null;
        for (JsonNode branch : r.dtypeBranches().map(b -> b.path(s)).orElse(missing())) {
          for (JsonNode store : branch.path("stores")) {
            element(store.asText())
                .ifPresent(t -> stated.putIfAbsent(t, branch.path("at").asText()));
            if (PLATFORM_DEPENDENT.matcher(store.asText()).find()) {
              platformDependent = true;
              platformAt = branch.path("at").asText() + " (" + store.asText() + ")";
            }
          }
        }
        String element = ELEMENT.get(format.get());
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
                  + e.versions()
                  + " maps it to "
                  + format.get()
                  + ", whose element type is "
                  + element);
        }
        if (platformDependent
            && e.platforms().stream().noneMatch(p -> p.formats().containsKey(s))) {
          out.add(
              where
                  + ": "
                  + s
                  + " stores a platform's own FP8 type ("
                  + platformAt
                  + "), but dtypeSpellings() for "
                  + e.versions()
                  + " maps it on no platform: add PlatformFormats for it");
        }
      }
      Optional<String> help = r.dtypeFlag().get().help();
      if (help.isPresent()) {
        Matcher m = ALIAS_IN_HELP.matcher(help.get());
        while (m.find()) {
          Optional<KvFormat> a = e.format(m.group(1));
          Optional<KvFormat> b = e.format(m.group(2));
          if (a.isPresent() && b.isPresent() && a.get() != b.get()) {
            out.add(
                where
                    + ": the help of "
                    + engine.dtypeFlag()
                    + " ("
                    + r.dtypeFlag().get().helpAt().orElse("?")
                    + ") says \""
                    + m.group()
                    + "\", but dtypeSpellings() for "
                    + e.versions()
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
    }
    return out;
  }

  /**
   * Each release's serve parser against the flag inventory holding it: no flag the release lacks
   * (except those the kit requires in every inventory: dtype, owned, listen and rendered flags),
   * the same arities, the same dialect, and every prefix of a flag the project reads resolving as
   * the release resolves it, and, for a dtype flag, an ambiguous prefix naming every candidate the
   * release would (a workload passing one is refused with them).
   */
  static List<String> inventoryProblems(Engine engine, ReleaseFacts facts) {
    List<String> out = new ArrayList<>();
    List<FlagInventory> inventories = engine.flagInventories();
    EngineVersion first = inventories.get(0).versions().from().orElse(EngineVersion.parse("0"));
    Map<VersionRange, Release> firsts = new LinkedHashMap<>();
    for (Release r : facts.releases()) {
      if (r.dtypeFlag().isEmpty()
          || r.flagCount() < 0
          || EngineVersion.parse(r.version()).compareTo(first) < 0) {
        continue;
      }
      String where = where(facts, r);
      Optional<String> version = Optional.of(r.version());
      FlagInventory inventory = engine.flagInventory(version);
      if (firsts.putIfAbsent(inventory.versions(), r) == null) {
        out.addAll(sourceNames(facts, "flagInventories()", inventory, r, Set.of()));
      }
      ArgvDialect dialect = engine.dialect(version);
      Set<String> required = required(engine, r.version());
      // an ambiguous prefix of a dtype flag is refused naming its candidates: all of them
      Set<String> named = new TreeSet<>(engine.dtypeFlags());
      Map<String, String> options = r.optionStrings();
      for (FlagSpec f : inventory.flags()) {
        String arity = options.get(f.name());
        if (arity == null) {
          if (required.contains(f.name())) {
            // listed for the kit; the release exits on it, so no cache attaches there
            options.put(f.name(), f.arity().name());
          } else {
            out.add(
                where
                    + ": flagInventories() for "
                    + inventory.versions()
                    + " lists "
                    + f.name()
                    + ", which the release does not have: remove it there, or start its range"
                    + " at the release that adds it");
          }
        } else if (!arity.equals(f.arity().name())) {
          out.add(
              where
                  + ": "
                  + f.name()
                  + " takes "
                  + arity
                  + " ("
                  + r.flags().getOrDefault(f.name(), missingFlag()).at()
                  + "), but flagInventories() for "
                  + inventory.versions()
                  + " says "
                  + f.arity()
                  + (arity.equals("OPTIONAL")
                      ? " (FlagArity has no nargs='?'; list it only where a prefix needs it)"
                      : ""));
        }
      }
      if (dialect.underscoresAsDashes() != r.underscoresAsDashes()) {
        out.add(
            where
                + ": its parser "
                + (r.underscoresAsDashes() ? "reads" : "does not read")
                + " --kv_cache_dtype as --kv-cache-dtype ("
                + r.parser().path("class").asText()
                + " "
                + r.parser().path("at").asText("")
                + "), but the dialect for "
                + inventory.versions()
                + " says underscoresAsDashes="
                + dialect.underscoresAsDashes());
      }
      r.dottedMembers()
          .filter(d -> d != dialect.dottedMembers())
          .ifPresent(
              d ->
                  out.add(
                      where
                          + ": its parser "
                          + (d ? "reads" : "does not read")
                          + " --flag.member as --flag ("
                          + r.parser().path("dottedMembersAt").asText("parser facts")
                          + "), but the dialect for "
                          + inventory.versions()
                          + " says dottedMembers="
                          + dialect.dottedMembers()));
      if (dialect.abbreviations() != r.abbreviations()) {
        out.add(
            where
                + ": its parser "
                + (r.abbreviations() ? "resolves" : "refuses")
                + " unique prefixes, but the dialect for "
                + inventory.versions()
                + " says abbreviations="
                + dialect.abbreviations());
      }
      Set<String> read = new TreeSet<>(required);
      inventory.kvFormatFlags().forEach(f -> read.add(f.name()));
      r.kvFlags().ifPresent(k -> k.stream().map(KvFlag::flag).forEach(read::add));
      FlagReader reader = new FlagReader(dialect, inventory);
      for (String flag : read) {
        if (!options.containsKey(flag)) {
          continue;
        }
        for (int end = 3; end <= flag.length(); end++) {
          String prefix = flag.substring(0, end);
          List<String> candidates =
              options.keySet().stream().filter(o -> o.startsWith(prefix)).toList();
          ReadToken java = reader.read(prefix).orElseThrow();
          String release;
          String javaSays = describe(java);
          boolean agree;
          if (options.containsKey(prefix)) {
            release = "is " + prefix;
            agree = java.readsAs(prefix);
          } else if (!r.abbreviations() || candidates.isEmpty()) {
            release = "is no option";
            agree = java.reading() == FlagReading.UNKNOWN;
          } else if (candidates.size() == 1) {
            release = "reads as " + candidates.get(0);
            agree = java.readsAs(candidates.get(0));
          } else {
            release = "is ambiguous (" + String.join(", ", candidates) + ")";
            agree =
                java.reading() == FlagReading.AMBIGUOUS
                    && (!named.contains(flag)
                        || new TreeSet<>(java.candidates()).equals(new TreeSet<>(candidates)));
          }
          if (!agree) {
            Set<String> lacking = new TreeSet<>(candidates);
            lacking.removeAll(inventory.byName().keySet());
            Set<String> extra = new TreeSet<>(java.candidates());
            extra.removeAll(candidates);
            out.add(
                where
                    + ": "
                    + prefix
                    + " "
                    + release
                    + " in the release, but flagInventories() for "
                    + inventory.versions()
                    + " "
                    + javaSays
                    + (lacking.isEmpty() ? "" : "; it lacks " + String.join(", ", lacking))
                    + (extra.isEmpty()
                        ? ""
                        : "; it lists " + String.join(", ", extra) + ", which the release lacks")
                    + (named.contains(flag)
                            && candidates.size() > 1
                            && java.reading() == FlagReading.AMBIGUOUS
                        ? " (a refusal names every candidate, so list them all)"
                        : ""));
            break;
          }
        }
      }
    }
    return out;
  }

  /**
   * The flags each release's code says change the KV format against the inventory's {@code
   * kvEffect} flags; a flag only named like one must be marked or reviewed ({@code reviewed}: flag
   * → why it leaves the format alone).
   */
  static List<String> kvFlagProblems(
      Engine engine, ReleaseFacts facts, Map<String, String> reviewed) {
    List<String> out = new ArrayList<>();
    EngineVersion first =
        engine.flagInventories().get(0).versions().from().orElse(EngineVersion.parse("0"));
    for (Release r : facts.releases()) {
      if (r.dtypeFlag().isEmpty()
          || r.kvFlags().isEmpty()
          || EngineVersion.parse(r.version()).compareTo(first) < 0) {
        continue;
      }
      String where = where(facts, r);
      FlagInventory inventory = engine.flagInventory(Optional.of(r.version()));
      Set<String> marked = new TreeSet<>();
      inventory.kvFormatFlags().forEach(f -> marked.add(f.name()));
      Set<String> found = new TreeSet<>();
      for (KvFlag k : r.kvFlags().get()) {
        found.add(k.flag());
        if (marked.contains(k.flag())) {
          continue;
        }
        if (k.listed()) {
          out.add(
              where
                  + ": the release has "
                  + k.flag()
                  + " ("
                  + k.at()
                  + "), which changes the KV format, but flagInventories() for "
                  + inventory.versions()
                  + " does not mark it (FlagSpec.withKvEffect)");
        } else if (!reviewed.containsKey(k.flag())) {
          out.add(
              where
                  + ": "
                  + k.flag()
                  + " ("
                  + k.at()
                  + ") is named like a flag that changes the KV format ("
                  + k.why()
                  + "): mark it withKvEffect in flagInventories() for "
                  + inventory.versions()
                  + ", or say in reviewedKvFormatCandidates() why it does not");
        }
      }
      for (String f : marked) {
        if (!found.contains(f)) {
          out.add(
              where
                  + ": flagInventories() for "
                  + inventory.versions()
                  + " marks "
                  + f
                  + " as changing the KV format, but "
                  + (r.flags().containsKey(f)
                      ? "the extraction did not pick it out: add it to tools/engine-facts"
                      : "the release does not have it")
                  + " ("
                  + facts.resource()
                  + ")");
        }
      }
    }
    return out;
  }

  /**
   * Each release's dtype report against {@code dtypeReports()}: the route or metric the row reads
   * is one the release serves, not a deprecated alias; every other route it serves is a deprecated
   * alias the row's source names; a metric's definition and an {@code auto} resolved before the
   * report are named in the source.
   */
  static List<String> reportProblems(Engine engine, ReleaseFacts facts) {
    List<String> out = new ArrayList<>();
    Map<VersionRange, List<Release>> rows = new LinkedHashMap<>();
    Map<VersionRange, DtypeReport> reports = new LinkedHashMap<>();
    for (Release r : facts.releases()) {
      if (r.dtypeFlag().isEmpty()) {
        continue;
      }
      String where = where(facts, r);
      Optional<DtypeReport> java = engine.dtypeReport(Optional.of(r.version()));
      if (r.report().isEmpty()) {
        java.ifPresent(
            j ->
                out.add(
                    where
                        + ": dtypeReports() reads "
                        + j.path()
                        + " for "
                        + j.versions()
                        + ", but the release serves no dtype report ("
                        + facts.resource()
                        + "): end that row before "
                        + r.version()));
        continue;
      }
      JsonNode report = r.report().get();
      if (java.isEmpty()) {
        out.add(
            where
                + ": the release reports its dtype ("
                + served(report)
                + "), but no row of dtypeReports() holds "
                + r.version());
        continue;
      }
      DtypeReport j = java.get();
      rows.computeIfAbsent(j.versions(), k -> new ArrayList<>()).add(r);
      reports.putIfAbsent(j.versions(), j);
      JsonNode routes = report.path("routes");
      if (routes.isObject()) {
        JsonNode own = routes.path(j.path());
        if (own.isMissingNode()) {
          out.add(
              where
                  + ": dtypeReports() for "
                  + j.versions()
                  + " reads "
                  + j.path()
                  + ", which the release does not serve (it serves "
                  + served(report)
                  + ")");
        } else if (own.path("deprecated").asBoolean()) {
          out.add(
              where
                  + ": dtypeReports() for "
                  + j.versions()
                  + " reads "
                  + j.path()
                  + ", a deprecated alias in the release ("
                  + own.path("at").asText()
                  + "): read the route it points at");
        }
        routes
            .properties()
            .forEach(
                route -> {
                  if (route.getKey().equals(j.path())) {
                    return;
                  }
                  if (!route.getValue().path("deprecated").asBoolean()) {
                    out.add(
                        where
                            + ": the release also serves "
                            + route.getKey()
                            + " ("
                            + route.getValue().path("at").asText()
                            + "), which dtypeReports() for "
                            + j.versions()
                            + " does not read");
                  } else if (!j.source().contains(route.getKey())) {
                    out.add(
                        where
                            + ": the release keeps "
                            + route.getKey()
                            + " as a deprecated alias ("
                            + route.getValue().path("at").asText()
                            + "); the source of dtypeReports() for "
                            + j.versions()
                            + " should say so");
                  }
                });
        String field = report.path("field").asText();
        if (!field.isEmpty() && !j.sample("bfloat16").contains("\"" + field + "\"")) {
          out.add(
              where
                  + ": the release reports the dtype in "
                  + field
                  + ", which the sample of dtypeReports() for "
                  + j.versions()
                  + " does not carry");
        }
      } else {
        if (!j.path().equals("/metrics")) {
          out.add(
              where
                  + ": the release reports its dtype as a metric ("
                  + served(report)
                  + "), but dtypeReports() for "
                  + j.versions()
                  + " reads "
                  + j.path());
        }
        JsonNode labels = report.path("labels");
        if (labels.path("cacheDtypeLabel").isBoolean()
            && !labels.path("cacheDtypeLabel").asBoolean()) {
          out.add(
              where
                  + ": the metric's labels ("
                  + labels.path("from").asText()
                  + ") carry no cache_dtype, but dtypeReports() for "
                  + j.versions()
                  + " reads it");
        }
        String resolved = report.path("autoResolvedBeforeReport").asText("");
        if (!resolved.isEmpty() && !j.source().contains(ReleaseFacts.file(resolved))) {
          out.add(
              where
                  + ": the release resolves auto before the report is built ("
                  + resolved
                  + "), so it reports the resolved spelling; the source of dtypeReports() for "
                  + j.versions()
                  + " should say so, naming "
                  + ReleaseFacts.file(resolved));
        }
      }
    }
    for (Map.Entry<VersionRange, List<Release>> group : rows.entrySet()) {
      DtypeReport report0 = reports.get(group.getKey());
      Set<String> files = new LinkedHashSet<>();
      for (Release r : group.getValue()) {
        JsonNode report = r.report().get();
        JsonNode route = report.path("routes").path(report0.path());
        if (route.isObject()) {
          files.add(ReleaseFacts.file(route.path("at").asText()));
        }
        report
            .properties()
            .forEach(
                m -> {
                  if (m.getValue().path("at").isArray()) {
                    files.add(m.getKey());
                    m.getValue().path("at").forEach(a -> files.add(ReleaseFacts.file(a.asText())));
                  }
                });
      }
      out.addAll(sourceNames(facts, "dtypeReports()", report0, group.getValue().get(0), files));
    }
    return out;
  }

  /** Sources that say a fact was guessed: a row rests on the release file or says why not. */
  static List<String> guessedSources(Engine engine) {
    List<String> out = new ArrayList<>();
    for (DtypeSpellings e : engine.dtypeSpellings().entries()) {
      guess("dtypeSpellings() for " + e.versions(), e.source(), out);
      for (PlatformFormats p : e.platforms()) {
        guess("dtypeSpellings() for " + e.versions() + " on " + p.platform(), p.source(), out);
      }
    }
    for (FlagInventory i : engine.flagInventories()) {
      guess("flagInventories() for " + i.versions(), i.source(), out);
    }
    for (DtypeReport d : engine.dtypeReports()) {
      guess("dtypeReports() for " + d.versions(), d.source(), out);
    }
    return out;
  }

  private static void guess(String what, String source, List<String> out) {
    Matcher m = GUESS.matcher(source);
    if (m.find()) {
      out.add(
          "the source of "
              + what
              + " says \""
              + m.group()
              + "\": read the release file (tools/engine-facts) and name it, or say why the"
              + " release's code cannot give the fact: "
              + source);
    }
  }

  /** A row's source names the first release it was read from and the files it was read in. */
  private static List<String> sourceNames(
      ReleaseFacts facts, String method, Versioned row, Release first, Set<String> files) {
    List<String> out = new ArrayList<>();
    if (!Pattern.compile(
            "(?<![\\w.])v?" + Pattern.quote(first.version()) + "(?!\\.?\\d|\\.?post|rc)")
        .matcher(row.source())
        .find()) {
      out.add(
          method
              + " for "
              + row.versions()
              + " is first checked against "
              + first.describe(facts.engine())
              + ", which its source does not name: \""
              + row.source()
              + "\"");
    }
    for (String file : files) {
      if (!file.isEmpty() && !row.source().contains(file)) {
        out.add(
            method
                + " for "
                + row.versions()
                + " rests on "
                + file
                + " in some of its releases ("
                + facts.resource()
                + "), which its source does not name: \""
                + row.source()
                + "\"");
      }
    }
    return out;
  }

  private static Map<DtypeSpellings, List<Release>> byRow(Engine engine, ReleaseFacts facts) {
    Map<DtypeSpellings, List<Release>> rows = new LinkedHashMap<>();
    for (Release r : facts.releases()) {
      if (r.dtypeFlag().isPresent()) {
        row(engine, r).ifPresent(e -> rows.computeIfAbsent(e, k -> new ArrayList<>()).add(r));
      }
    }
    return rows;
  }

  private static Optional<DtypeSpellings> row(Engine engine, Release r) {
    return engine.dtypeSpellings().forVersion(Optional.of(r.version())).entry();
  }

  /** The flags the kit requires in every inventory: dtype, owned, listen and rendered ones. */
  private static Set<String> required(Engine engine, String version) {
    Set<String> flags = new TreeSet<>(engine.dtypeFlags());
    flags.addAll(engine.ownedFlags());
    flags.addAll(engine.listenFlags());
    for (RoleKind kind : RoleKind.values()) {
      String dtype =
          engine.dtypeSpellings().newest().spellings().stream()
              .filter(s -> !s.equals(Dtype.AUTO))
              .findFirst()
              .orElse(Dtype.AUTO);
      CacheAttachment a = engine.attachment(KitChecks.request(kind, version, dtype));
      for (String token : a.connectorArgs()) {
        if (token.startsWith("--")) {
          flags.add(token.contains("=") ? token.substring(0, token.indexOf('=')) : token);
        }
      }
      a.defaultedArgs().stream().map(ArgGroup::flag).forEach(flags::add);
    }
    return flags;
  }

  private static String describe(ReadToken t) {
    return switch (t.reading()) {
      case EXACT -> "reads it as " + t.flag().orElseThrow();
      case ABBREVIATION -> "reads it as " + t.flag().orElseThrow();
      case AMBIGUOUS -> "finds it ambiguous (" + String.join(", ", t.candidates()) + ")";
      case UNKNOWN -> "knows no such option";
    };
  }

  private static Optional<String> element(String expression) {
    Matcher m = TORCH_ELEMENT.matcher(expression);
    if (!m.matches()) {
      return Optional.empty();
    }
    return Optional.of(m.group(1).equals("half") ? "float16" : m.group(1));
  }

  private static String served(JsonNode report) {
    List<String> names = new ArrayList<>();
    report.path("routes").fieldNames().forEachRemaining(names::add);
    report
        .properties()
        .forEach(
            m -> {
              if (m.getValue().path("at").isArray()) {
                names.add(m.getKey() + " at " + m.getValue().path("at").get(0).asText());
              }
            });
    return String.join(", ", names);
  }

  private static String where(ReleaseFacts facts, Release r) {
    return r.describe(facts.engine()) + ", " + facts.resource();
  }

  private static JsonNode missing() {
    return com.fasterxml.jackson.databind.node.MissingNode.getInstance();
  }

  private static ReleaseFacts.Flag missingFlag() {
    return new ReleaseFacts.Flag("?", "?", "?", List.of(), Optional.empty());
  }

  static String lower(String s) {
    return s.toLowerCase(Locale.ROOT);
  }
}
