package ai.gpustack.kvcache.operator;

import static org.assertj.core.api.Assertions.assertThat;

import ai.gpustack.kvcache.api.ReuseDomain;
import ai.gpustack.kvcache.api.RoleKind;
import ai.gpustack.kvcache.attach.KvCacheArgs;
import ai.gpustack.kvcache.attach.WorkloadArgs;
import ai.gpustack.kvcache.spi.Engine;
import ai.gpustack.kvcache.spi.EngineRegistry;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import org.junit.jupiter.api.Test;

/**
 * The embedding façade, given the plain values the Binding in {@code attach/cluster.yaml} resolves
 * to, renders what the operator and the webhook render for it: the committed golden commands and
 * injected args, byte for byte, for every registered engine.
 */
class KvCacheArgsGoldenTest {
  private static final ObjectMapper JSON = new ObjectMapper();

  @Test
  void plain_values_render_the_operators_commands_and_the_webhooks_args() throws Exception {
    EngineRegistry engines = EngineRegistry.load();
    KvCacheArgs kv = KvCacheArgs.of(engines);
    for (Engine engine : engines.engines()) {
      JsonNode golden =
          JSON.readTree(
              Path.of(
                      "src/test/resources/golden/attach",
                      engine.id().toLowerCase(Locale.ROOT) + ".json")
                  .toFile());
      for (RoleKind kind : RoleKind.values()) {
        List<String> expected =
            strings(golden.at("/managedCommand/" + kind.name().toLowerCase(Locale.ROOT)));
        assertThat(kv.managedCommand(workload(engine, golden).roleKind(kind).build()).argv())
            .as("%s %s", engine.id(), kind)
            .isEqualTo(expected);
      }
      List<String> base = engine.baseArgv(golden.get("model").asText());
      KvCacheArgs.Rendered injected =
          kv.injectedArgs(workload(engine, golden).addAllCommand(base).build());
      for (JsonNode op : golden.get("injectedPatch")) {
        if (op.get("path").asText().equals("/spec/containers/0/args")) {
          assertThat(injected.argv()).as(engine.id()).isEqualTo(strings(op.get("value")));
        }
      }
    }
  }

  /** The plain values team-a/chat resolves to: its domain, the backend's endpoint, the tenant. */
  private static WorkloadArgs.Builder workload(Engine engine, JsonNode golden) {
    return WorkloadArgs.builder()
        .engine(engine.id())
        .model(golden.get("model").asText())
        .domain(ReuseDomain.builder().name("chat").blockSize(16).dtype("bfloat16").build())
        .clientEndpoint("backend-master.kv.svc:50051")
        .tenant("chat");
  }

  private static List<String> strings(JsonNode array) {
    List<String> out = new ArrayList<>();
    array.forEach(n -> out.add(n.asText()));
    return out;
  }
}
