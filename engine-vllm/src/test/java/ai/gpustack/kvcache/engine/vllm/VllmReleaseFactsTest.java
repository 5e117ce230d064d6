package ai.gpustack.kvcache.engine.vllm;

import ai.gpustack.kvcache.api.KvFormat;
import ai.gpustack.kvcache.spi.DtypeReport;
import ai.gpustack.kvcache.spi.Engine;
import ai.gpustack.kvcache.tck.ReleaseFacts;
import ai.gpustack.kvcache.tck.ReleaseFactsTest;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import org.junit.jupiter.api.Test;

class VllmReleaseFactsTest extends ReleaseFactsTest {
  private final VllmEngine vllm = new VllmEngine();

  @Override
  protected Engine engine() {
    return vllm;
  }

  /** 0.4.1 and 0.4.2's help: "FP8_E5M2 (without scaling) is only supported on cuda ...". */
  @Test
  void fp8_is_e5m2_where_the_flags_help_says_so() {
    List<String> problems = new ArrayList<>();
    for (ReleaseFacts.Release r : facts().releases()) {
      Optional<String> help = r.dtypeFlag().flatMap(ReleaseFacts.DtypeFlag::help);
      if (help.isPresent() && help.get().contains("FP8_E5M2 (without scaling)")) {
        Optional<KvFormat> fp8 = vllm.kvFormat("fp8", Optional.of(r.version()));
        if (!fp8.equals(Optional.of(KvFormat.FLOAT8_E5M2))) {
          problems.add(
              r.describe("vllm")
                  + ": the help of --kv-cache-dtype ("
                  + r.dtypeFlag().get().helpAt().orElse("?")
                  + ") calls fp8 FP8_E5M2, but dtypeSpellings() maps it to "
                  + fp8.map(KvFormat::id).orElse("nothing"));
        }
      }
    }
    assertNone("fp8 formats that disagree with the help", problems);
  }

  @Test
  void the_report_says_auto_is_resolved_exactly_where_the_release_resolves_it() {
    List<String> problems = new ArrayList<>();
    for (ReleaseFacts.Release r : facts().releases()) {
      Optional<DtypeReport> report = vllm.dtypeReport(Optional.of(r.version()));
      if (r.report().isEmpty() || report.isEmpty()) {
        continue;
      }
      boolean releaseResolves = r.report().get().hasNonNull("autoResolvedBeforeReport");
      boolean ours = ((CacheConfigMetricReport) report.get()).resolvesAuto();
      if (releaseResolves != ours) {
        problems.add(
            r.describe("vllm")
                + ", "
                + facts().resource()
                + ": the release "
                + (releaseResolves
                    ? "resolves auto before CacheConfig is built ("
                        + r.report().get().path("autoResolvedBeforeReport").asText()
                        + ")"
                    : "reports the spelling as given")
                + ", but the report for "
                + report.get().versions()
                + " says resolvesAuto="
                + ours);
      }
    }
    assertNone("dtype reports that disagree on auto", problems);
  }
}
