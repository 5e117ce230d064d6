package ai.gpustack.kvcache.tck;

import ai.gpustack.kvcache.spi.DtypeReport;
import ai.gpustack.kvcache.spi.Engine;
import ai.gpustack.kvcache.spi.VersionRange;
import ai.gpustack.kvcache.tck.ReleaseFacts.Release;
import com.fasterxml.jackson.databind.JsonNode;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;

/**
 * Each release's dtype report against {@code dtypeReports()}: the route or metric the row reads is
 * one the release serves, not a deprecated alias; every other route it serves is a deprecated alias
 * the row's source names; a metric's definition and an {@code auto} resolved before the report are
 * named in the source.
 */
final class ReportChecks {
  private final String where;
  private final JsonNode report;
  private final DtypeReport row;
  private final List<String> out = new ArrayList<>();

  private ReportChecks(String where, JsonNode report, DtypeReport row) {
    this.where = where;
    this.report = report;
    this.row = row;
  }

  /** Every disagreement, release by release, then each row's unnamed sources. */
  static List<String> problems(Engine engine, ReleaseFacts facts) {
    List<String> out = new ArrayList<>();
    Map<VersionRange, List<Release>> releasesByRow = new LinkedHashMap<>();
    Map<VersionRange, DtypeReport> rows = new LinkedHashMap<>();
    for (Release r : facts.releases()) {
      if (r.dtypeFlag().isEmpty()) {
        continue;
      }
      String where = facts.where(r);
      Optional<DtypeReport> row = engine.dtypeReport(Optional.of(r.version()));
      if (r.report().isEmpty() || row.isEmpty()) {
        out.addAll(unpaired(facts, where, r, row));
        continue;
      }
      DtypeReport j = row.get();
      releasesByRow.computeIfAbsent(j.versions(), k -> new ArrayList<>()).add(r);
      rows.putIfAbsent(j.versions(), j);
      out.addAll(new ReportChecks(where, r.report().get(), j).problems());
    }
    for (Map.Entry<VersionRange, List<Release>> group : releasesByRow.entrySet()) {
      out.addAll(unnamedFiles(facts, rows.get(group.getKey()), group.getValue()));
    }
    return out;
  }

  /** A row for a release serving no report, or a report no row holds. */
  private static List<String> unpaired(
      ReleaseFacts facts, String where, Release r, Optional<DtypeReport> row) {
    if (r.report().isEmpty()) {
      return row.map(
              j ->
                  List.of(
                      where
                          + ": dtypeReports() reads "
                          + j.path()
                          + " for "
                          + j.versions()
                          + ", but the release serves no dtype report ("
                          + facts.resource()
                          + "): end that row before "
                          + r.version()))
          .orElse(List.of());
    }
    return List.of(
        where
            + ": the release reports its dtype ("
            + served(r.report().get())
            + "), but no row of dtypeReports() holds "
            + r.version());
  }

  private List<String> problems() {
    JsonNode routes = report.path("routes");
    if (routes.isObject()) {
      ownRouteProblem(routes);
      otherRouteProblems(routes);
      fieldProblem();
    } else {
      metricProblems();
    }
    return out;
  }

  /** The route the row reads is served, and not as a deprecated alias. */
  private void ownRouteProblem(JsonNode routes) {
    JsonNode own = routes.path(row.path());
    if (own.isMissingNode()) {
      out.add(
          where
              + ": dtypeReports() for "
              + row.versions()
              + " reads "
              + row.path()
              + ", which the release does not serve (it serves "
              + served(report)
              + ")");
    } else if (own.path("deprecated").asBoolean()) {
      out.add(
          where
              + ": dtypeReports() for "
              + row.versions()
              + " reads "
              + row.path()
              + ", a deprecated alias in the release ("
              + own.path("at").asText()
              + "): read the route it points at");
    }
  }

  /** Every other route served is a deprecated alias the row's source names. */
  private void otherRouteProblems(JsonNode routes) {
    routes
        .properties()
        .forEach(
            route -> {
              if (route.getKey().equals(row.path())) {
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
                        + row.versions()
                        + " does not read");
              } else if (!row.source().contains(route.getKey())) {
                out.add(
                    where
                        + ": the release keeps "
                        + route.getKey()
                        + " as a deprecated alias ("
                        + route.getValue().path("at").asText()
                        + "); the source of dtypeReports() for "
                        + row.versions()
                        + " should say so");
              }
            });
  }

  /** The row's sample carries the field the release reports the dtype in. */
  private void fieldProblem() {
    String field = report.path("field").asText();
    if (!field.isEmpty() && !row.sample("bfloat16").contains("\"" + field + "\"")) {
      out.add(
          where
              + ": the release reports the dtype in "
              + field
              + ", which the sample of dtypeReports() for "
              + row.versions()
              + " does not carry");
    }
  }

  /** A metric report: read at /metrics, labelled with cache_dtype, auto resolution named. */
  private void metricProblems() {
    if (!row.path().equals("/metrics")) {
      out.add(
          where
              + ": the release reports its dtype as a metric ("
              + served(report)
              + "), but dtypeReports() for "
              + row.versions()
              + " reads "
              + row.path());
    }
    JsonNode labels = report.path("labels");
    if (labels.path("cacheDtypeLabel").isBoolean() && !labels.path("cacheDtypeLabel").asBoolean()) {
      out.add(
          where
              + ": the metric's labels ("
              + labels.path("from").asText()
              + ") carry no cache_dtype, but dtypeReports() for "
              + row.versions()
              + " reads it");
    }
    String resolved = report.path("autoResolvedBeforeReport").asText("");
    if (!resolved.isEmpty() && !row.source().contains(ReleaseFacts.file(resolved))) {
      out.add(
          where
              + ": the release resolves auto before the report is built ("
              + resolved
              + "), so it reports the resolved spelling; the source of dtypeReports() for "
              + row.versions()
              + " should say so, naming "
              + ReleaseFacts.file(resolved));
    }
  }

  /** The row's source names its first release and every file its releases' reports rest on. */
  private static List<String> unnamedFiles(
      ReleaseFacts facts, DtypeReport row, List<Release> releases) {
    Set<String> files = new LinkedHashSet<>();
    for (Release r : releases) {
      JsonNode report = r.report().get();
      JsonNode route = report.path("routes").path(row.path());
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
    return SourceChecks.sourceNames(facts, "dtypeReports()", row, releases.get(0), files);
  }

  /** The routes and metrics a report is served at, for messages. */
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
}
