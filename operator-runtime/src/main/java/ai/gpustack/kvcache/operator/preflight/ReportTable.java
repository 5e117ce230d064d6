package ai.gpustack.kvcache.operator.preflight;

import ai.gpustack.kvcache.operator.preflight.Report.BindingCheck;
import ai.gpustack.kvcache.operator.preflight.Report.EngineUse;
import ai.gpustack.kvcache.operator.preflight.Report.Rollout;
import java.io.PrintWriter;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.stream.Collectors;

/** The report for a person: grouped sections, aligned columns, colour when asked for. */
public final class ReportTable {
  public static final String RED = "\u001b[31m";
  public static final String YELLOW = "\u001b[33m";
  public static final String GREEN = "\u001b[32m";
  private static final String BOLD = "\u001b[1m";
  private static final String RESET = "\u001b[0m";

  private final boolean colour;

  public ReportTable(boolean colour) {
    this.colour = colour;
  }

  public void print(Report report, PrintWriter out) {
    printHeader(report, out);
    printBindings(report, out);
    printFindings(report, out);
    printRollouts(report, out);
    printSummary(report, out);
    out.flush();
  }

  private void printHeader(Report report, PrintWriter out) {
    out.println(bold("kvcache preflight") + ": " + report.source());
    out.println(
        "Settings: "
            + report.settings().entrySet().stream()
                .map(e -> e.getKey() + "=" + e.getValue())
                .collect(Collectors.joining(", ")));
    out.println();
  }

  private void printBindings(Report report, PrintWriter out) {
    out.println(bold("BINDINGS"));
    if (report.bindings().isEmpty()) {
      out.println("  (none)");
    } else {
      List<List<String>> rows = new ArrayList<>();
      rows.add(List.of("NAMESPACE", "NAME", "DTYPE", "ENGINE", "ACCEPTS", "KV FORMAT", "USED BY"));
      for (BindingCheck b : report.bindings()) {
        addBindingRows(b, rows);
      }
      table(
          rows,
          out,
          cell ->
              switch (cell) {
                case "yes" -> GREEN;
                case "NO" -> RED;
                default -> "";
              });
    }
    out.println();
  }

  /** One row per engine using the Binding, the Binding's own cells on the first only. */
  private static void addBindingRows(BindingCheck b, List<List<String>> rows) {
    if (b.engines().isEmpty()) {
      rows.add(List.of(b.namespace(), b.name(), b.dtype(), "-", "-", "-", "(unused)"));
    }
    boolean first = true;
    for (EngineUse e : b.engines()) {
      rows.add(
          List.of(
              first ? b.namespace() : "",
              first ? b.name() : "",
              first ? b.dtype() : "",
              e.engine() + (e.version().isEmpty() ? "" : " " + e.version()),
              e.accepts() ? "yes" : "NO",
              e.format(),
              String.join(", ", e.users())));
      first = false;
    }
    if (b.engines().size() > 1 || b.breaks()) {
      rows.add(
          List.of(
              "",
              "",
              "",
              "all accept:",
              "",
              "",
              b.acceptedByAll().isEmpty() ? "(nothing)" : String.join(" ", b.acceptedByAll())));
    }
  }

  private void printFindings(Report report, PrintWriter out) {
    List<Finding> breaking =
        report.findings().stream().filter(f -> f.severity() == Finding.Severity.BREAKS).toList();
    List<Finding> warnings =
        report.findings().stream().filter(f -> f.severity() == Finding.Severity.WARNING).toList();
    out.println(bold("WILL BREAK OR BE REFUSED (" + breaking.size() + ")"));
    findings(breaking, paint(RED, "BREAKS"), out);
    out.println(bold("WARNINGS (" + warnings.size() + ")"));
    findings(warnings, paint(YELLOW, "WARN"), out);
  }

  private void printRollouts(Report report, PrintWriter out) {
    out.println(bold("ROLLOUT"));
    if (report.rollouts().isEmpty()) {
      out.println("  (no ModelDeployments)");
    } else {
      List<List<String>> rows = new ArrayList<>();
      rows.add(
          List.of(
              "NAMESPACE", "NAME", "REPLICAS", "RUNNING", "ON UPGRADE", "ON SETTING FLIP", "NOTE"));
      for (Rollout r : report.rollouts()) {
        rows.add(
            List.of(
                r.namespace(),
                r.name(),
                String.valueOf(r.replicas()),
                String.valueOf(r.running()),
                rolls(r.rollOnUpgrade(), r.running()),
                rolls(r.rollOnSettingFlip(), r.running()),
                r.note()));
      }
      table(rows, out, cell -> "");
    }
    out.println();
  }

  private void printSummary(Report report, PrintWriter out) {
    String summary =
        report.breaking()
            + " will break or be refused, "
            + report.warnings()
            + " warning"
            + (report.warnings() == 1 ? "" : "s");
    out.println(
        report.exitCode() == 0
            ? paint(GREEN, "Nothing will break: " + summary + ".")
            : paint(RED, "Fix before upgrading: " + summary + "."));
  }

  private static String rolls(int rolling, int running) {
    return running == 0 ? "-" : rolling + " of " + running;
  }

  private void findings(List<Finding> findings, String tag, PrintWriter out) {
    if (findings.isEmpty()) {
      out.println("  (none)");
    }
    for (Finding f : findings) {
      out.println("  " + tag + " " + bold(f.object()) + " [" + f.check() + "]");
      out.println("    " + f.message());
      if (f.detail() != null && !f.detail().isEmpty()) {
        out.println("    " + f.detail());
      }
    }
    out.println();
  }

  /**
   * {@code rows} in aligned columns, indented two spaces, the first row bold, each cell in the
   * colour {@code tint} gives it ({@code ""} for none): also {@code kvcache verify}'s table.
   */
  public void table(
      List<List<String>> rows, PrintWriter out, java.util.function.Function<String, String> tint) {
    int columns = rows.get(0).size();
    int[] width = new int[columns];
    for (List<String> row : rows) {
      for (int i = 0; i < columns; i++) {
        width[i] = Math.max(width[i], row.get(i).length());
      }
    }
    for (int r = 0; r < rows.size(); r++) {
      StringBuilder line = new StringBuilder("  ");
      for (int i = 0; i < columns; i++) {
        String cell = rows.get(r).get(i);
        String padded = i == columns - 1 ? cell : pad(cell, width[i] + 2);
        line.append(r == 0 ? bold(padded) : paint(tint.apply(cell), padded));
      }
      out.println(line.toString().stripTrailing());
    }
  }

  private static String pad(String s, int width) {
    return s + " ".repeat(Math.max(0, width - s.length()));
  }

  private String bold(String s) {
    return paint(BOLD, s);
  }

  private String paint(String code, String s) {
    return colour && !code.isEmpty() ? code + s + RESET : s;
  }

  /**
   * Whether to colour: {@code always}, {@code never}, or {@code auto} (a terminal, no NO_COLOR).
   */
  public static boolean colour(String mode, Map<String, String> env) {
    return switch (mode) {
      case "always" -> true;
      case "never" -> false;
      default ->
          System.console() != null
              && !env.containsKey("NO_COLOR")
              && !"dumb".equals(env.getOrDefault("TERM", "dumb"));
    };
  }
}
