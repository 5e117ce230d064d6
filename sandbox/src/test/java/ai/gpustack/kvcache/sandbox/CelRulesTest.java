package ai.gpustack.kvcache.sandbox;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.dataformat.yaml.YAMLFactory;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * Every CEL rule of the committed CRDs, read from the YAML and evaluated by the sandbox's {@link
 * Cel} against objects that must pass and must fail, so a cluster without the webhook keeps the
 * immutability rules too, and the sandbox refuses what the API server would.
 */
class CelRulesTest {
  private static final ObjectMapper YAML = new ObjectMapper(new YAMLFactory());
  private static final ObjectMapper JSON = new ObjectMapper();

  record Case(
      String crd, String at, String ruleStart, String self, String oldSelf, boolean passes) {
    @Override
    public String toString() {
      return crd
          + " "
          + at
          + " ["
          + ruleStart
          + "] "
          + self
          + " <- "
          + oldSelf
          + " => "
          + (passes ? "admitted" : "refused");
    }
  }

  static final String MD = "modeldeployments.worker.gpustack.ai.yaml";
  static final String B = "kvcachepoolbindings.worker.gpustack.ai.yaml";
  static final String P = "kvcachepools.worker.gpustack.ai.yaml";

  static final String ROLES_A =
      "{\"roles\":[{\"name\":\"a\",\"kind\":\"Prefill\"},{\"name\":\"b\",\"kind\":\"Decode\",\"command\":[\"x\"]}]}";

  static List<Case> cases() {
    return List.of(
        new Case(
            B, "spec.poolRef", "self == oldSelf", "{\"name\":\"p\"}", "{\"name\":\"p\"}", true),
        new Case(
            B, "spec.poolRef", "self == oldSelf", "{\"name\":\"q\"}", "{\"name\":\"p\"}", false),
        new Case(B, "spec.domain.name", "self == oldSelf", "\"a\"", "\"a\"", true),
        new Case(B, "spec.domain.name", "self == oldSelf", "\"b\"", "\"a\"", false),
        new Case(B, "spec.domain.blockSize", "self == oldSelf", "32", "16", false),
        new Case(B, "spec.domain.dtype", "self == oldSelf", "\"fp8_e4m3\"", "\"bfloat16\"", false),
        new Case(B, "spec.domain.dtype", "self == oldSelf", "\"bfloat16\"", "\"bfloat16\"", true),
        new Case(
            B, "spec.domain.dtype", "self == self.lowerAscii()", "\"BFloat16\"", "null", false),
        new Case(B, "spec.domain.dtype", "self == self.lowerAscii()", "\"bfloat16\"", "null", true),
        new Case(P, "spec.backends", "self == oldSelf", "[\"a\"]", "[\"b\"]", false),
        new Case(
            MD, "spec.model", "self == oldSelf", "{\"name\":\"m2\"}", "{\"name\":\"m\"}", false),
        new Case(MD, "spec.engine.name", "self == oldSelf", "\"SGLang\"", "\"vLLM\"", false),
        new Case(
            MD,
            "spec.kvCache",
            "self == oldSelf",
            "{\"poolRef\":{\"name\":\"b\"}}",
            "{\"poolRef\":{\"name\":\"a\"}}",
            false),
        new Case(
            MD,
            "spec",
            "has(self.kvCache)",
            "{\"roles\":[]}",
            "{\"kvCache\":{\"poolRef\":{\"name\":\"a\"}},\"roles\":[]}",
            false),
        new Case(
            MD,
            "spec",
            "has(self.kvCache)",
            "{\"kvCache\":{},\"roles\":[]}",
            "{\"kvCache\":{},\"roles\":[]}",
            true),
        new Case(MD, "spec", "self.roles.size()", ROLES_A, ROLES_A, true),
        new Case(
            MD,
            "spec",
            "self.roles.size()",
            "{\"roles\":[{\"name\":\"b\",\"kind\":\"Decode\",\"command\":[\"x\"],\"replicas\":3,\"extraArgs\":[\"--y\"]},{\"name\":\"a\",\"kind\":\"Prefill\"}]}",
            ROLES_A,
            true),
        new Case(
            MD,
            "spec",
            "self.roles.size()",
            "{\"roles\":[{\"name\":\"a\",\"kind\":\"Decode\"},{\"name\":\"b\",\"kind\":\"Decode\",\"command\":[\"x\"]}]}",
            ROLES_A,
            false),
        new Case(
            MD,
            "spec",
            "self.roles.size()",
            "{\"roles\":[{\"name\":\"a\",\"kind\":\"Prefill\"},{\"name\":\"b\",\"kind\":\"Decode\",\"command\":[\"y\"]}]}",
            ROLES_A,
            false),
        new Case(
            MD,
            "spec",
            "self.roles.size()",
            "{\"roles\":[{\"name\":\"a\",\"kind\":\"Prefill\",\"command\":[\"z\"]},{\"name\":\"b\",\"kind\":\"Decode\",\"command\":[\"x\"]}]}",
            ROLES_A,
            false),
        new Case(
            MD,
            "spec",
            "self.roles.size()",
            "{\"roles\":[{\"name\":\"a\",\"kind\":\"Prefill\"},{\"name\":\"c\",\"kind\":\"Decode\",\"command\":[\"x\"]}]}",
            ROLES_A,
            false),
        new Case(
            MD,
            "spec",
            "self.roles.size()",
            "{\"roles\":[{\"name\":\"a\",\"kind\":\"Prefill\"}]}",
            ROLES_A,
            false));
  }

  @ParameterizedTest(name = "{0}")
  @MethodSource("cases")
  void each_rule_admits_and_refuses_as_written(Case c) throws Exception {
    String rule = rule(c.crd(), c.at(), c.ruleStart());
    assertThat(Cel.holds(rule, JSON.readTree(c.self()), JSON.readTree(c.oldSelf())))
        .as(rule)
        .isEqualTo(c.passes());
  }

  /**
   * The rule starting with {@code start} on the schema node at {@code at} (a dotted field path).
   */
  static String rule(String crd, String at, String start) throws Exception {
    JsonNode schema =
        YAML.readTree(Path.of("..", "deploy", "crds", crd).toFile())
            .at("/spec/versions/0/schema/openAPIV3Schema");
    for (String field : at.split("\\.")) {
      schema = schema.path("properties").path(field);
    }
    for (JsonNode v : schema.path("x-kubernetes-validations")) {
      if (v.path("rule").asText().startsWith(start)) {
        return v.path("rule").asText();
      }
    }
    throw new AssertionError("no rule starting with " + start + " at " + at + " in " + crd);
  }
}
