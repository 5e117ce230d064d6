package ai.gpustack.kvcache.resources;

import static org.assertj.core.api.Assertions.assertThat;

import ai.gpustack.kvcache.api.Json;
import com.fasterxml.jackson.annotation.JsonClassDescription;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.fabric8.crd.generator.annotation.AdditionalPrinterColumn;
import io.fabric8.crdv2.generator.CRDGenerator;
import io.fabric8.crdv2.generator.CRDPostProcessor;
import io.fabric8.kubernetes.api.model.HasMetadata;
import io.fabric8.kubernetes.api.model.apiextensions.v1.CustomResourceColumnDefinition;
import io.fabric8.kubernetes.api.model.apiextensions.v1.CustomResourceDefinition;
import io.fabric8.kubernetes.api.model.apiextensions.v1.JSONSchemaProps;
import io.fabric8.kubernetes.client.utils.KubernetesSerialization;
import java.io.File;
import java.lang.reflect.ParameterizedType;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;

/**
 * Generates the CRDs from the Java model with fabric8's programmatic generator (it keeps the schema
 * of {@code Optional} fields, which the Maven plugin loses) and pins them against the committed
 * {@code deploy/crds}. Regenerate with {@code -Dkvcache.golden.write=true}.
 */
class CrdGenerationTest {
  static final Path COMMITTED = Path.of("..", "deploy", "crds");

  /** The CRDs as the generator writes them, printer columns in declaration order, by file name. */
  static List<Generated> generate() throws Exception {
    Path dir = Files.createTempDirectory("crds");
    ObjectMapper mapper = Json.newMapper();
    KubernetesSerialization serialization = new KubernetesSerialization(mapper, false);
    new CRDGenerator()
        .inOutputDir(dir.toFile())
        .forCRDVersions("v1")
        .withObjectMapper(mapper, serialization)
        .withPostProcessor(
            new CRDPostProcessor() {
              @Override
              public HasMetadata process(HasMetadata crd, String version) {
                return described(declarationOrderColumns(crd));
              }
            })
        .customResourceClasses(
            new ArrayList<Class<? extends HasMetadata>>(KvCacheSerialization.RESOURCES))
        .generate();
    List<Generated> out = new ArrayList<>();
    try (Stream<Path> files = Files.list(dir)) {
      for (Path f : files.sorted().toList()) {
        out.add(
            new Generated(
                f.getFileName().toString().replace("-v1.yml", ".yaml"), Files.readString(f)));
        f.toFile().delete();
      }
    }
    dir.toFile().delete();
    return out;
  }

  record Generated(String name, String yaml) {}

  /**
   * The generator takes descriptions from properties only; the kind's, its spec's and its status's
   * come from their classes' {@link JsonClassDescription}, for {@code kubectl explain}.
   */
  private static HasMetadata described(HasMetadata crd) {
    CustomResourceDefinition definition = (CustomResourceDefinition) crd;
    Class<?> type = resource(definition);
    ParameterizedType resource = (ParameterizedType) type.getGenericSuperclass();
    definition
        .getSpec()
        .getVersions()
        .forEach(
            v -> {
              JSONSchemaProps schema = v.getSchema().getOpenAPIV3Schema();
              schema.setDescription(description(type));
              schema
                  .getProperties()
                  .get("spec")
                  .setDescription(description((Class<?>) resource.getActualTypeArguments()[0]));
              schema
                  .getProperties()
                  .get("status")
                  .setDescription(description((Class<?>) resource.getActualTypeArguments()[1]));
            });
    return crd;
  }

  /** The class's description, or the one its Immutables definition carries. */
  private static String description(Class<?> type) {
    for (Class<?> c = type; c != null; c = c.getSuperclass()) {
      List<Class<?>> candidates = new ArrayList<>(List.of(c));
      candidates.addAll(List.of(c.getInterfaces()));
      for (Class<?> candidate : candidates) {
        JsonClassDescription d = candidate.getAnnotation(JsonClassDescription.class);
        if (d != null) {
          return d.value();
        }
      }
    }
    throw new AssertionError(type + " has no @JsonClassDescription");
  }

  private static Class<?> resource(CustomResourceDefinition definition) {
    String kind = definition.getSpec().getNames().getKind();
    return KvCacheSerialization.RESOURCES.stream()
        .filter(c -> c.getSimpleName().equals(kind))
        .findFirst()
        .orElseThrow();
  }

  /** The generator sorts printer columns by JSON path; people read them in the order declared. */
  private static HasMetadata declarationOrderColumns(HasMetadata crd) {
    CustomResourceDefinition definition = (CustomResourceDefinition) crd;
    Class<?> type = resource(definition);
    List<String> order =
        Arrays.stream(type.getAnnotationsByType(AdditionalPrinterColumn.class))
            .map(AdditionalPrinterColumn::name)
            .toList();
    definition
        .getSpec()
        .getVersions()
        .forEach(
            v -> {
              List<CustomResourceColumnDefinition> columns =
                  new ArrayList<>(v.getAdditionalPrinterColumns());
              columns.sort(
                  (a, b) ->
                      Integer.compare(order.indexOf(a.getName()), order.indexOf(b.getName())));
              v.setAdditionalPrinterColumns(columns);
            });
    return crd;
  }

  @Test
  void the_committed_crds_match_the_java_model() throws Exception {
    List<Generated> generated = generate();
    assertThat(generated).hasSize(KvCacheSerialization.RESOURCES.size());
    for (Generated g : generated) {
      Path committed = COMMITTED.resolve(g.name());
      if (Boolean.getBoolean("kvcache.golden.write")) {
        Files.createDirectories(COMMITTED);
        Files.writeString(committed, g.yaml(), StandardCharsets.UTF_8);
      }
      assertThat(committed)
          .as("deploy/crds/%s is missing; regenerate with -Dkvcache.golden.write=true", g.name())
          .exists();
      assertThat(Files.readString(committed))
          .as("deploy/crds/%s is stale; regenerate with -Dkvcache.golden.write=true", g.name())
          .isEqualTo(g.yaml());
    }
    File[] files = COMMITTED.toFile().listFiles((d, n) -> !n.equals("kustomization.yaml"));
    assertThat(files).as("CRDs no resource defines any more").hasSize(generated.size());
  }
}
