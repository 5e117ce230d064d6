package ai.gpustack.kvcache.tck;

import ai.gpustack.kvcache.api.KvFormat;
import ai.gpustack.kvcache.api.RoleKind;
import ai.gpustack.kvcache.spi.AttachmentRequest;
import ai.gpustack.kvcache.spi.DtypeSpellings;
import ai.gpustack.kvcache.spi.Engine;
import ai.gpustack.kvcache.spi.FlagOccurrence;
import ai.gpustack.kvcache.spi.FlagReader;
import ai.gpustack.kvcache.spi.ManagedRole;
import ai.gpustack.kvcache.spi.PlatformFormats;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.TreeMap;

/**
 * What reaches the engine's parser for each accepted spelling against what the spelling table
 * declares: the declared engine value ({@code engineValue(spelling)}) on every dtype flag, on every
 * road that renders it, and one KV format for one engine value. A wrong value is accepted at
 * admission and fails, or worse runs another type, only on the engine.
 */
final class ValueChecks {
  private ValueChecks() {}

  /**
   * Every accepted spelling, at every boundary version its row holds, rendered by {@code
   * dtypeArgs(engineValue(...))}, {@code commandFor} and {@code appendedArgs}: each dtype flag
   * carries the row's engine value. Reported once per road, row and spelling.
   */
  static List<String> renderedValueProblems(Engine engine, String model) {
    Map<String, String> out = new LinkedHashMap<>();
    for (DtypeSpellings row : engine.dtypeSpellings().entries()) {
      for (String version : Boundaries.within(engine, row.versions())) {
        for (String spelling : row.spellings()) {
          Rendering r = new Rendering(engine, model, row, spelling, version);
          r.translationProblem()
              .ifPresent(p -> out.putIfAbsent(row.versions() + " " + spelling, p));
          r.roadProblems()
              .forEach((road, p) -> out.putIfAbsent(road + row.versions() + " " + spelling, p));
        }
      }
    }
    return List.copyOf(out.values());
  }

  /**
   * Spellings of one row handed to the engine as one value ({@code bfloat16} translated to {@code
   * bf16} beside {@code bf16} itself) but mapped to different formats, on the default platform or
   * on one of {@code platforms()}: the engine stores one format for one value.
   */
  static List<String> sharedValueFormatProblems(Engine engine) {
    List<String> out = new ArrayList<>();
    for (DtypeSpellings row : engine.dtypeSpellings().entries()) {
      Map<String, List<String>> byValue = new TreeMap<>();
      row.spellings()
          .forEach(s -> byValue.computeIfAbsent(row.engineValue(s), k -> new ArrayList<>()).add(s));
      for (Map.Entry<String, List<String>> group : byValue.entrySet()) {
        if (group.getValue().size() < 2) {
          continue;
        }
        formatsDisagree(group.getValue(), row.formats())
            .ifPresent(f -> out.add(shared(row, group.getKey(), group.getValue(), f, "")));
        for (PlatformFormats p : row.platforms()) {
          Map<String, KvFormat> onPlatform = new TreeMap<>(row.formats());
          onPlatform.putAll(p.formats());
          formatsDisagree(group.getValue(), onPlatform)
              .ifPresent(
                  f ->
                      out.add(
                          shared(row, group.getKey(), group.getValue(), f, " on " + p.platform())));
        }
      }
    }
    return out;
  }

  /** Each spelling's format in {@code formats}, when they are not all one; empty otherwise. */
  private static Optional<String> formatsDisagree(
      List<String> spellings, Map<String, KvFormat> formats) {
    Set<KvFormat> distinct = new LinkedHashSet<>();
    List<String> said = new ArrayList<>();
    for (String s : spellings) {
      KvFormat f = formats.get(s);
      if (f != null) {
        distinct.add(f);
        said.add(s + " to " + f);
      }
    }
    return distinct.size() > 1 ? Optional.of(String.join(" and ", said)) : Optional.empty();
  }

  private static String shared(
      DtypeSpellings row, String value, List<String> spellings, String formats, String where) {
    return "dtypeSpellings() for "
        + row.versions()
        + " hands the engine "
        + value
        + " for each of "
        + String.join(", ", spellings)
        + translations(row, spellings)
        + ", but maps "
        + formats
        + where
        + ": the engine stores one format for one value; map them alike in formats() (or"
        + " PlatformFormats), or translate each spelling to its own value in engineValues()";
  }

  private static String translations(DtypeSpellings row, List<String> spellings) {
    List<String> t = new ArrayList<>();
    spellings.stream()
        .filter(row.engineValues()::containsKey)
        .forEach(s -> t.add(s + " → " + row.engineValue(s)));
    return t.isEmpty() ? "" : " (engineValues(): " + String.join(", ", t) + ")";
  }

  /** One spelling rendered at one version, on each road. */
  private static final class Rendering {
    private final Engine engine;
    private final String model;
    private final DtypeSpellings row;
    private final String spelling;
    private final String version;
    private final String expected;
    private final FlagReader reader;

    Rendering(Engine engine, String model, DtypeSpellings row, String spelling, String version) {
      this.engine = engine;
      this.model = model;
      this.row = row;
      this.spelling = spelling;
      this.version = version;
      this.expected = row.engineValue(spelling);
      this.reader = engine.flagReader(Optional.of(version));
    }

    /** {@code engineValue(dtype, version)} is the row's translation. */
    Optional<String> translationProblem() {
      String said = engine.engineValue(spelling, Optional.of(version));
      if (said.equals(expected)) {
        return Optional.empty();
      }
      return Optional.of(
          "engineValue("
              + spelling
              + ", "
              + version
              + ") is "
              + said
              + ", but dtypeSpellings() for "
              + row.versions()
              + " declares the engine value "
              + expected
              + declaredBy()
              + ": translate in DtypeSpellings.engineValues() and leave engineValue(dtype,"
              + " version) to the table");
    }

    /** Road → what it hands a dtype flag instead of the declared value. */
    Map<String, String> roadProblems() {
      Map<String, String> out = new LinkedHashMap<>();
      AttachmentRequest request = KitChecks.request(RoleKind.Server, version, spelling);
      String value = engine.engineValue(spelling, Optional.of(version));
      check(out, "dtypeArgs(engineValue(" + spelling + ", version))", engine.dtypeArgs(value));
      ManagedRole role =
          ManagedRole.builder().model(model).engineVersion(version).attachment(request).build();
      check(
          out,
          "commandFor(role, attachment)",
          engine.commandFor(role, Optional.of(engine.attachment(request))));
      check(
          out,
          "appendedArgs(command, args, request, attachment)",
          engine.appendedArgs(List.of("launcher"), List.of(), request, engine.attachment(request)));
      return out;
    }

    private void check(Map<String, String> out, String road, List<String> argv) {
      for (String flag : engine.dtypeFlags()) {
        List<String> values = new ArrayList<>();
        for (FlagOccurrence o : reader.find(argv, flag)) {
          values.add(o.value().orElse("(no value)"));
        }
        if (!values.equals(List.of(expected))) {
          out.put(road, wrong(road, flag, values, argv));
          return;
        }
      }
    }

    private String wrong(String road, String flag, List<String> values, List<String> argv) {
      return road
          + " at engine version "
          + version
          + " hands "
          + flag
          + (values.isEmpty() ? " nothing" : " " + String.join(", ", values))
          + " for the Binding's "
          + spelling
          + ", but dtypeSpellings() for "
          + row.versions()
          + " declares the engine value "
          + expected
          + declaredBy()
          + ", once on every dtype flag: render engineValue(dtype) unchanged in dtypeArgs(dtype),"
          + " and translate in DtypeSpellings.engineValues() (argv: "
          + argv
          + ")";
    }

    private String declaredBy() {
      return row.engineValues().containsKey(spelling)
          ? " (engineValues(): " + spelling + " → " + expected + ")"
          : " (the spelling itself: engineValues() does not translate it)";
    }
  }
}
