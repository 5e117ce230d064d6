package ai.gpustack.kvcache.operator;

import static org.assertj.core.api.Assertions.assertThat;

import ai.gpustack.kvcache.admission.Admission;
import ai.gpustack.kvcache.admission.Decision;
import ai.gpustack.kvcache.admission.Request;
import ai.gpustack.kvcache.admission.Route;
import ai.gpustack.kvcache.api.RoleKind;
import ai.gpustack.kvcache.cluster.Manifests;
import ai.gpustack.kvcache.cluster.MemoryClusterView;
import ai.gpustack.kvcache.operator.render.PodRenderer;
import ai.gpustack.kvcache.operator.render.Rendering;
import ai.gpustack.kvcache.resources.Keys;
import ai.gpustack.kvcache.resources.KvCacheSerialization;
import ai.gpustack.kvcache.resources.ModelDeployment;
import ai.gpustack.kvcache.spi.Engine;
import ai.gpustack.kvcache.spi.EngineRegistry;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Locale;
import org.junit.jupiter.api.Test;

/**
 * What users see byte for byte, per registered engine: the rendered {@code command} of a managed
 * role of each kind, and the JSON Patch that attaches an injected Pod, through the Binding in
 * {@code attach/cluster.yaml}. Regenerate with {@code -Dkvcache.golden.write=true}.
 */
class AttachmentGoldenTest {
  private static final ObjectMapper JSON = new ObjectMapper();
  private static final Path GOLDEN = Path.of("src/test/resources/golden/attach");
  private static final String MODEL = "qwen/qwen3-8b";

  @Test
  void the_rendered_commands_and_patches_are_the_committed_ones() throws Exception {
    EngineRegistry engines = EngineRegistry.load();
    MemoryClusterView cluster =
        MemoryClusterView.of(
            Manifests.objects(List.of(Path.of("src/test/resources/attach/cluster.yaml"))));
    PodRenderer renderer = new PodRenderer(engines);
    Admission admission = new Admission(engines, cluster);
    assertThat(engines.engines()).isNotEmpty();
    for (Engine engine : engines.engines()) {
      ObjectNode golden = JSON.createObjectNode();
      golden.put("engine", engine.id()).put("binding", "team-a/chat").put("model", MODEL);
      ObjectNode commands = golden.putObject("managedCommand");
      Rendering rendering = renderer.render(deployment(engine), cluster);
      for (Rendering.RolePlan role : rendering.roles()) {
        ArrayNode command = commands.putArray(role.name());
        role.pods().get(0).getSpec().getContainers().get(0).getCommand().forEach(command::add);
      }
      Decision injected =
          admission.decide(
              Route.POD_INJECTION,
              new Request("golden", "Pod", "CREATE", "team-a", "", pod(engine), null));
      assertThat(injected.allowed()).as(injected.message()).isTrue();
      golden.set("injectedPatch", injected.patch().orElseThrow().operations());
      String text = JSON.writerWithDefaultPrettyPrinter().writeValueAsString(golden) + "\n";
      Path file = GOLDEN.resolve(engine.id().toLowerCase(Locale.ROOT) + ".json");
      if (Boolean.getBoolean("kvcache.golden.write")) {
        Files.createDirectories(GOLDEN);
        Files.writeString(file, text);
      }
      assertThat(file)
          .as("%s is missing; regenerate with -Dkvcache.golden.write=true", file)
          .exists();
      assertThat(Files.readString(file))
          .as("%s is stale; regenerate with -Dkvcache.golden.write=true", file)
          .isEqualTo(text);
    }
  }

  /** A deployment of one role per kind through Binding team-a/chat. */
  private static ModelDeployment deployment(Engine engine) {
    ObjectNode md = JSON.createObjectNode();
    md.put("apiVersion", "worker.gpustack.ai/v1").put("kind", "ModelDeployment");
    md.putObject("metadata").put("name", "chat").put("namespace", "team-a").put("uid", "u1");
    ObjectNode spec = md.putObject("spec");
    spec.putObject("model").put("name", MODEL);
    spec.putObject("engine").put("name", engine.id());
    spec.putObject("kvCache").putObject("poolRef").put("name", "chat");
    ArrayNode roles = spec.putArray("roles");
    for (RoleKind kind : RoleKind.values()) {
      roles
          .addObject()
          .put("name", kind.name().toLowerCase(Locale.ROOT))
          .put("kind", kind.name())
          .put("image", "engine:latest");
    }
    return KvCacheSerialization.create().convertValue(md, ModelDeployment.class);
  }

  /** A Pod launching the engine's base argv, opting into injection through team-a/chat. */
  private static JsonNode pod(Engine engine) {
    ObjectNode pod = JSON.createObjectNode();
    pod.put("apiVersion", "v1").put("kind", "Pod");
    ObjectNode meta = pod.putObject("metadata").put("name", "p").put("namespace", "team-a");
    meta.putObject("labels").put(Keys.INJECT, "true");
    meta.putObject("annotations").put(Keys.BINDING, "chat").put(Keys.ENGINE, engine.id());
    ObjectNode container = pod.putObject("spec").putArray("containers").addObject();
    container.put("name", "main").put("image", "engine:latest");
    ArrayNode command = container.putArray("command");
    engine.baseArgv(MODEL).forEach(command::add);
    return pod;
  }
}
