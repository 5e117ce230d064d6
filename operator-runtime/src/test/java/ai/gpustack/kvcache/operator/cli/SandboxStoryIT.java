package ai.gpustack.kvcache.operator.cli;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.PrintWriter;
import java.io.StringWriter;
import org.junit.jupiter.api.Test;
import picocli.CommandLine;

/** The README's main job: {@code kvcache sandbox} tells the whole story and exits 0. */
class SandboxStoryIT {
  @Test
  void the_sandbox_shows_renders_refusals_conditions_and_both_setting_flips() {
    StringWriter out = new StringWriter();
    CommandLine cli = KvCacheCommand.commandLine("sandbox");
    cli.setOut(new PrintWriter(out, true));
    cli.setErr(new PrintWriter(new StringWriter(), true));
    int code = cli.execute("sandbox");
    String story = out.toString();
    assertThat(code).as(story).isZero();
    assertThat(story)
        .contains("created  ModelDeployment team-a/chat-vllm")
        .contains("REFUSED  ModelDeployment team-a/legacy-vllm")
        .contains("declares dtype \"bf16\", which engine \"vLLM\"")
        .contains("REFUSED  ModelDeployment team-a/own-flag")
        .contains("REFUSED  ModelDeployment team-a/fp8-vllm-0-6")
        .contains(
            "dtype \"fp8\" on vLLM 0.6.0 stores float8_e4m3fn while the domain stores float8_e5m2"
                + " since ModelDeployment/fp8-vllm-0-4")
        .contains("role \"server\" passes --kv-cache-dtype while it attaches a KV cache pool")
        .contains(
            "REFUSED  Pod team-a/injected-own-flag-0 -> Deployment injected-own-flag reports FailedCreate")
        .contains("container \"vllm\" passes --kv-cache-dtype while it attaches a KV cache pool")
        .containsPattern(
            "chat-vllm-server-0  vllm serve qwen/qwen3-8b --kv-transfer-config \\S+ \\[--kv-cache-dtype bfloat16\\] --max-model-len=8192")
        .containsPattern(
            "chat-sglang-server-0  python3 -m sglang.launch_server .*\\[--kv-cache-dtype bfloat16\\] --enable-hierarchical-cache")
        .contains("injected-vllm-0 (injected)")
        .contains("Setting model-deployment-kv-cache-dtype-owned to \"false\"")
        .contains("created  ModelDeployment team-a/own-flag")
        .contains("DtypeAccepted=False SpellingRejectedByEngine")
        .contains("DtypeObserved=True Matches: every Ready replica (2) reports \"bfloat16\"")
        .contains(
            "DtypeObserved=False Differs: replica own-flag-server-0 reports \"fp8\" where"
                + " KVCachePoolBinding \"chat\" declares \"bfloat16\" (its argv passes \"fp8\")")
        .containsPattern(
            "own-flag-server-0  .*\\[--kv-cache-dtype bfloat16\\] \\[--kv-cache-dtype fp8\\]")
        .endsWith("sandbox: done\n");
    // With the Setting off no replica carries the flag; after it is back on they all do again.
    String off = story.substring(story.indexOf("to \"false\""), story.indexOf("to \"true\""));
    assertThat(off.lines().filter(l -> l.contains("chat-vllm-server-")).toList())
        .hasSize(2)
        .allSatisfy(l -> assertThat(l).doesNotContain("kv-cache-dtype"));
    String on = story.substring(story.indexOf("to \"true\""));
    assertThat(on.lines().filter(l -> l.contains("chat-vllm-server-")).toList())
        .hasSize(2)
        .allSatisfy(l -> assertThat(l).contains("[--kv-cache-dtype bfloat16]"));
    assertThat(on.lines().filter(l -> l.contains("legacy-vllm-server-0")).findFirst().orElseThrow())
        .doesNotContain("kv-cache-dtype");
  }
}
