package ai.gpustack.kvcache.api;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.ObjectMapper;
import org.junit.jupiter.api.Test;

class ReuseDomainTest {
  private final ObjectMapper json = Json.newMapper();

  @Test
  void an_omitted_name_reads_as_default() throws Exception {
    ReuseDomain domain =
        json.readValue("{\"blockSize\":16,\"dtype\":\"bfloat16\"}", ReuseDomain.class);
    assertThat(domain.name()).isEqualTo("default");
    assertThat(json.writeValueAsString(domain))
        .isEqualTo("{\"name\":\"default\",\"blockSize\":16,\"dtype\":\"bfloat16\"}");
  }

  @Test
  void a_stored_domain_that_breaks_the_rules_still_reads_and_validate_reports_every_problem()
      throws Exception {
    ReuseDomain domain =
        json.readValue(
            "{\"name\":\"Team_A\",\"blockSize\":0,\"dtype\":\"FP8\"}", ReuseDomain.class);
    Problems problems = Problems.create();
    domain.validate("spec.domain", problems);
    assertThat(problems.messages())
        .containsExactly(
            "spec.domain.name: Invalid value: \"Team_A\": a reuse domain is named like a Kubernetes"
                + " object: "
                + Dns.labelRule(),
            "spec.domain.blockSize: Invalid value: \"0\": must be greater than 0: it is the number"
                + " of tokens one cache block holds",
            "spec.domain.dtype: Invalid value: \"FP8\": must be lowercase (\"fp8\"): engines match"
                + " the spelling exactly, and two spellings of one type would read as two types");
  }

  @Test
  void a_valid_domain_has_no_problems() {
    Problems problems = Problems.create();
    ReuseDomain.builder()
        .name("team-a")
        .blockSize(16)
        .dtype("fp8_e4m3")
        .build()
        .validate("d", problems);
    assertThat(problems.isEmpty()).isTrue();
  }
}
