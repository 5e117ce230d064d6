package ai.gpustack.kvcache.operator.render;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import ai.gpustack.kvcache.api.Condition;
import ai.gpustack.kvcache.cluster.Manifests;
import ai.gpustack.kvcache.cluster.MemoryClusterView;
import ai.gpustack.kvcache.operator.status.DeploymentConditions;
import ai.gpustack.kvcache.resources.Keys;
import ai.gpustack.kvcache.resources.ModelDeployment;
import ai.gpustack.kvcache.resources.Pods;
import ai.gpustack.kvcache.resources.Setting;
import ai.gpustack.kvcache.spi.EngineRegistry;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.fabric8.kubernetes.api.model.HasMetadata;
import io.fabric8.kubernetes.api.model.Pod;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import org.junit.jupiter.api.Test;

class PodRendererTest {
  private final PodRenderer renderer = new PodRenderer(EngineRegistry.load());

  static List<HasMetadata> objects(String... files) {
    List<Path> paths = new ArrayList<>();
    for (String f : files) {
      paths.add(Path.of("src/test/resources/render", f));
    }
    return new ArrayList<>(Manifests.objects(paths));
  }

  static ModelDeployment md(List<HasMetadata> objects) {
    return objects.stream()
        .filter(ModelDeployment.class::isInstance)
        .map(ModelDeployment.class::cast)
        .findFirst()
        .orElseThrow();
  }

  static Setting owned(String value) {
    Setting s = new Setting();
    s.getMetadata().setName("model-deployment-kv-cache-dtype-owned");
    s.getMetadata().setNamespace("gpustack-system");
    s.setSpec(ai.gpustack.kvcache.api.SettingSpec.builder().value(value).build());
    return s;
  }

  Rendering render(List<HasMetadata> objects) {
    return renderer.render(md(objects), MemoryClusterView.of(objects));
  }

  static List<String> command(Pod pod) {
    return pod.getSpec().getContainers().get(0).getCommand();
  }

  @Test
  void each_managed_role_folds_base_connector_dtype_extra_args_and_listen_fill_into_command() {
    Rendering r = render(objects("cluster.yaml", "vllm.yaml"));
    assertThat(r.roles())
        .extracting(Rendering.RolePlan::name)
        .containsExactly("prefill", "decode", "router");
    Pod prefill = r.roles().get(0).pods().get(0);
    assertThat(command(prefill))
        .containsExactly(
            "vllm",
            "serve",
            "qwen/qwen3-8b",
            "--kv-transfer-config",
            "{\"kv_connector\":\"MooncakeStoreConnector\",\"kv_role\":\"kv_producer\"}",
            "--kv-cache-dtype",
            "bfloat16",
            "--kv-cache-dtype=fp8",
            "--host",
            "0.0.0.0",
            "--port",
            "8000");
    assertThat(prefill.getMetadata().getName()).isEqualTo("chat-prefill-0");
    assertThat(prefill.getSpec().getContainers().get(0).getName()).isEqualTo("main");
    assertThat(prefill.getSpec().getContainers().get(0).getImage())
        .isEqualTo("vllm/vllm-openai:v0.29.0");
    assertThat(prefill.getMetadata().getLabels())
        .containsEntry(Keys.INSTANCE, "chat")
        .containsEntry(Keys.COMPONENT, "prefill")
        .containsEntry(Keys.POD_ORDINAL, "0");
    assertThat(prefill.getMetadata().getAnnotations())
        .containsKey(Keys.POD_SPEC_HASH)
        .containsKey(Keys.CLIENT_CONFIG);
    Pod decode = r.roles().get(1).pods().get(1);
    assertThat(decode.getMetadata().getName()).isEqualTo("chat-decode-1");
    assertThat(command(decode))
        .endsWith("--port", "9000")
        .contains("{\"kv_connector\":\"MooncakeStoreConnector\",\"kv_role\":\"kv_consumer\"}");
    assertThat(decode.getSpec().getContainers().get(0).getEnv())
        .extracting(e -> e.getName())
        .containsExactly("HF_HOME", "MOONCAKE_CONFIG_PATH", "MC_TE_METRIC");
  }

  /**
   * Every rendered Pod byte for byte, its spec hash included: a hash that moves rolls every replica
   * the operator built when it is upgraded. Regenerate with {@code -Dkvcache.golden.write=true}.
   */
  @Test
  void the_rendered_pods_and_their_hashes_are_the_committed_ones() throws Exception {
    List<Pod> pods =
        render(objects("cluster.yaml", "vllm.yaml")).roles().stream()
            .flatMap(role -> role.pods().stream())
            .toList();
    String text = new ObjectMapper().writerWithDefaultPrettyPrinter().writeValueAsString(pods);
    Path golden = Path.of("src/test/resources/golden/render/vllm-pods.json");
    if (Boolean.getBoolean("kvcache.golden.write")) {
      Files.createDirectories(golden.getParent());
      Files.writeString(golden, text + "\n");
    }
    assertThat(golden)
        .as("%s is missing; regenerate with -Dkvcache.golden.write=true", golden)
        .exists();
    assertThat(Files.readString(golden))
        .as("%s is stale; regenerate with -Dkvcache.golden.write=true", golden)
        .isEqualTo(text + "\n");
  }

  @Test
  void a_take_over_role_gets_exactly_its_own_argv() {
    Rendering r = render(objects("cluster.yaml", "vllm.yaml"));
    Rendering.RolePlan router = r.roles().get(2);
    assertThat(router.unmanaged()).isTrue();
    assertThat(command(router.pods().get(0))).containsExactly("router", "--port", "80");
    assertThat(router.pods().get(0).getSpec().getContainers().get(0).getEnv()).isEmpty();
    assertThat(router.pods().get(0).getMetadata().getAnnotations())
        .doesNotContainKey(Keys.CLIENT_CONFIG);
  }

  @Test
  void the_hash_is_stable_across_renders_and_moves_with_the_setting() {
    List<HasMetadata> objects = objects("cluster.yaml", "vllm.yaml");
    String first = hash(render(objects), 0);
    Rendering again =
        new PodRenderer(EngineRegistry.load())
            .render(md(objects), MemoryClusterView.of(objects("cluster.yaml", "vllm.yaml")));
    assertThat(hash(again, 0)).isEqualTo(first).hasSize(20);
    List<HasMetadata> reversed = new ArrayList<>(objects);
    Collections.reverse(reversed);
    assertThat(hash(renderer.render(md(objects), MemoryClusterView.of(reversed)), 0))
        .isEqualTo(first);
    objects.add(owned("false"));
    Rendering off = render(objects);
    assertThat(command(off.roles().get(0).pods().get(0)))
        .doesNotContain("--kv-cache-dtype", "bfloat16")
        .contains("--kv-cache-dtype=fp8");
    assertThat(hash(off, 0)).isNotEqualTo(first);
    assertThat(hash(off, 2))
        .as("a take-over role does not move")
        .isEqualTo(hash(render(objects("cluster.yaml", "vllm.yaml")), 2));
  }

  @Test
  void a_replica_whose_inputs_did_not_change_gets_the_pod_rendered_before() {
    List<HasMetadata> objects = objects("cluster.yaml", "vllm.yaml");
    Pod first = render(objects).roles().get(0).pods().get(0);
    assertThat(render(objects("cluster.yaml", "vllm.yaml")).roles().get(0).pods().get(0))
        .isSameAs(first);
    objects.add(owned("false"));
    Pod off = render(objects).roles().get(0).pods().get(0);
    assertThat(off).isNotSameAs(first);
    assertThat(Pods.hash(off)).isNotEqualTo(Pods.hash(first));
  }

  /** The spec hash of the first replica of role {@code role}. */
  private static String hash(Rendering rendering, int role) {
    return Pods.hash(rendering.roles().get(role).pods().get(0)).orElseThrow();
  }

  @Test
  void a_binding_whose_dtype_the_engine_rejects_holds_the_rollout() {
    List<HasMetadata> objects = objects("cluster.yaml", "vllm.yaml");
    ModelDeployment md = md(objects);
    md.setSpec(
        md.getSpec()
            .withKvCache(
                md.getSpec()
                    .kvCache()
                    .get()
                    .withPoolRef(ai.gpustack.kvcache.api.LocalRef.of("legacy"))));
    Rendering r = renderer.render(md, MemoryClusterView.of(objects));
    assertThat(r.isHeld()).isTrue();
    Condition accepted =
        DeploymentConditions.of(r, true).stream()
            .filter(c -> c.type().equals("DtypeAccepted"))
            .findFirst()
            .orElseThrow();
    assertThat(accepted.status()).isEqualTo("False");
    assertThat(accepted.reason()).contains("SpellingRejectedByEngine");
  }

  @Test
  void without_a_binding_no_connector_and_no_dtype_is_rendered() {
    List<HasMetadata> objects = objects("vllm.yaml");
    Rendering r = render(objects);
    assertThat(command(r.roles().get(0).pods().get(0)))
        .doesNotContain("--kv-transfer-config", "bfloat16");
    assertThat(DeploymentConditions.of(r, true))
        .anySatisfy(c -> assertThat(c.reason()).contains("BindingNotFound"));
  }

  @Test
  void an_unknown_engine_does_not_render() {
    assertThatThrownBy(() -> render(objects("unknown-engine.yaml")))
        .isInstanceOf(RenderException.class)
        .hasMessageContaining("engine \"TGI\" is not registered");
  }
}
