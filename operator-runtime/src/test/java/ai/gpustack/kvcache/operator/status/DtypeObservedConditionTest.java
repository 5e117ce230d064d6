package ai.gpustack.kvcache.operator.status;

import static org.assertj.core.api.Assertions.assertThat;

import ai.gpustack.kvcache.api.Condition;
import ai.gpustack.kvcache.observe.Observation;
import ai.gpustack.kvcache.observe.Verdict;
import java.util.List;
import java.util.Optional;
import java.util.stream.IntStream;
import org.junit.jupiter.api.Test;

/** What a tenant's argv or engine says reaches the condition short and escaped, at any scale. */
class DtypeObservedConditionTest {
  private static Observation differs(int i, String argvDtype) {
    return new Observation(
        "team-b",
        "wide-server-" + i,
        "ModelDeployment/wide",
        "vLLM",
        "chat",
        "bfloat16",
        Optional.of(argvDtype),
        Optional.of("fp8"),
        "GET :8000/metrics",
        Verdict.DIFFERS,
        true);
  }

  @Test
  void a_thousand_differing_replicas_with_a_huge_hostile_argv_make_a_short_escaped_message() {
    String hostile = "Z".repeat(100_000) + "\u001b[31m";
    List<Observation> known = IntStream.range(0, 1000).mapToObj(i -> differs(i, hostile)).toList();
    Condition c = DtypeObservedCondition.of(known, 1000, true);
    assertThat(c.reason()).contains("Differs");
    String message = c.message().orElseThrow();
    assertThat(message.length()).isLessThan(2_000);
    assertThat(message)
        .startsWith(
            "replica wide-server-0 reports \"fp8\" where KVCachePoolBinding \"chat\" declares"
                + " \"bfloat16\" (its argv passes \""
                + "Z".repeat(64)
                + "…\" (100005 characters))")
        .contains("; replica wide-server-4 reports")
        .doesNotContain("wide-server-5 ")
        .contains("; and 995 more")
        .doesNotContain("\u001b");
  }

  @Test
  void a_short_argv_is_shown_whole_with_its_control_characters_escaped() {
    Condition c = DtypeObservedCondition.of(List.of(differs(0, "fp8\u001b[31m")), 1, true);
    assertThat(c.message().orElseThrow())
        .contains("(its argv passes \"fp8\\x1b[31m\")")
        .doesNotContain("and 0 more");
  }
}
