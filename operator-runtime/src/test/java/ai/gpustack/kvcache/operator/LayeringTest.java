package ai.gpustack.kvcache.operator;

import static com.tngtech.archunit.lang.syntax.ArchRuleDefinition.noClasses;
import static org.assertj.core.api.Assertions.assertThat;

import com.tngtech.archunit.core.domain.JavaClasses;
import com.tngtech.archunit.core.importer.ClassFileImporter;
import com.tngtech.archunit.core.importer.ImportOption;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * The layering, kept by the build: the values, the engine contract and the rules know no API
 * server; only the runtimes talk to one; the reconcilers and the command line are leaves; only the
 * command line reaches the sandbox (the image leaves it out). Main classes of every module, as this
 * module's test classpath holds them.
 */
class LayeringTest {
  private static final String BASE = "ai.gpustack.kvcache";

  /** What talks to an API server; the model classes of the client artifact are not. */
  private static final String[] CLIENT = {
    "io.fabric8.kubernetes.client.KubernetesClient",
    "io.fabric8.kubernetes.client.KubernetesClientBuilder",
    "io.fabric8.kubernetes.client.dsl..",
    "io.fabric8.kubernetes.client.informers..",
    "io.fabric8.kubernetes.client.http..",
    "io.javaoperatorsdk.."
  };

  private static final JavaClasses MAIN =
      new ClassFileImporter()
          .withImportOption(ImportOption.Predefined.DO_NOT_INCLUDE_TESTS)
          .withImportOption(location -> !location.contains("-tests.jar"))
          .importPackages(BASE);

  @Test
  void every_module_is_on_the_classpath_so_no_rule_passes_empty() {
    for (String module :
        List.of(
            ".api",
            ".spi",
            ".engine.vllm",
            ".engine.sglang",
            ".attach",
            ".admission",
            ".webhook",
            ".sandbox",
            ".operator.reconcile",
            ".operator.informers",
            ".operator.status",
            ".operator.cli")) {
      assertThat(MAIN.containPackage(BASE + module)).as(BASE + module).isTrue();
    }
  }

  @Test
  void the_values_and_the_engine_contract_know_no_kubernetes() {
    noClasses()
        .that()
        .resideInAnyPackage(BASE + ".api..", BASE + ".spi..", BASE + ".engine..")
        .should()
        .dependOnClassesThat()
        .resideInAnyPackage("io.fabric8.kubernetes..", "io.javaoperatorsdk..")
        .because("an engine module depends on kvcache-api and kvcache-spi only")
        .check(MAIN);
  }

  @Test
  void the_rules_and_the_renderers_talk_to_no_api_server() {
    noClasses()
        .that()
        .resideInAnyPackage(
            BASE + ".api..",
            BASE + ".spi..",
            BASE + ".engine..",
            BASE + ".attach..",
            BASE + ".resources..",
            BASE + ".admission..",
            BASE + ".operator.render..",
            BASE + ".operator.deploy..",
            BASE + ".operator.docs..",
            BASE + ".operator.explain..")
        .should()
        .dependOnClassesThat()
        .resideInAnyPackage(packagesOf(CLIENT))
        .orShould()
        .dependOnClassesThat()
        .haveFullyQualifiedName(CLIENT[0])
        .orShould()
        .dependOnClassesThat()
        .haveFullyQualifiedName(CLIENT[1])
        .because("what they decide comes in as values, read by the cluster view or the runtimes")
        .check(MAIN);
  }

  @Test
  void the_model_and_the_webhook_reach_no_operator_and_no_sandbox() {
    noClasses()
        .that()
        .resideInAnyPackage(
            BASE + ".attach..",
            BASE + ".resources..",
            BASE + ".cluster..",
            BASE + ".observe..",
            BASE + ".admission..",
            BASE + ".webhook..")
        .should()
        .dependOnClassesThat()
        .resideInAnyPackage(BASE + ".operator..", BASE + ".sandbox..")
        .check(MAIN);
  }

  @Test
  void the_reconcilers_are_reached_only_from_the_operator_and_the_command_line() {
    noClasses()
        .that()
        .resideOutsideOfPackages(
            BASE + ".operator.reconcile..", BASE + ".operator", BASE + ".operator.cli..")
        .should()
        .dependOnClassesThat()
        .resideInAPackage(BASE + ".operator.reconcile..")
        .check(MAIN);
  }

  @Test
  void the_informer_caches_are_read_only_by_the_reconcilers_and_the_operators_wiring() {
    noClasses()
        .that()
        .resideOutsideOfPackages(
            BASE + ".operator.informers..", BASE + ".operator.reconcile..", BASE + ".operator")
        .should()
        .dependOnClassesThat()
        .resideInAPackage(BASE + ".operator.informers..")
        .check(MAIN);
  }

  @Test
  void the_command_line_is_a_leaf_and_the_only_way_into_the_sandbox() {
    noClasses()
        .that()
        .resideOutsideOfPackage(BASE + ".operator.cli..")
        .should()
        .dependOnClassesThat()
        .resideInAPackage(BASE + ".operator.cli..")
        .check(MAIN);
    noClasses()
        .that()
        .resideOutsideOfPackages(BASE + ".operator.cli..", BASE + ".sandbox..")
        .should()
        .dependOnClassesThat()
        .resideInAPackage(BASE + ".sandbox..")
        .because("the image is built without the sandbox")
        .check(MAIN);
  }

  private static String[] packagesOf(String[] targets) {
    return java.util.Arrays.stream(targets).filter(t -> t.endsWith("..")).toArray(String[]::new);
  }
}
