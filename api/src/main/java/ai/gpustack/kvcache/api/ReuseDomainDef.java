package ai.gpustack.kvcache.api;

import com.fasterxml.jackson.annotation.JsonClassDescription;
import com.fasterxml.jackson.annotation.JsonIgnoreProperties;
import com.fasterxml.jackson.annotation.JsonPropertyDescription;
import com.fasterxml.jackson.databind.annotation.JsonDeserialize;
import com.fasterxml.jackson.databind.annotation.JsonSerialize;
import io.fabric8.generator.annotation.Default;
import io.fabric8.generator.annotation.Min;
import io.fabric8.generator.annotation.Pattern;
import io.fabric8.generator.annotation.Required;
import io.fabric8.generator.annotation.Size;
import io.fabric8.generator.annotation.ValidationRule;
import org.immutables.value.Value;

/**
 * A reuse domain: the tenant of a KV cache store that engines share blocks in. Every field is
 * immutable once a Binding is stored, because reading blocks back at another size or as another
 * type is silent corruption.
 *
 * <p>The wire type is lenient so that any stored object reads; {@link #validate} reports what the
 * rules refuse.
 */
@JsonClassDescription(
    "A reuse domain: the tenant of a KV cache store that engines share blocks in. Every field is"
        + " immutable once the Binding is stored: reading blocks back at another size or as"
        + " another type is silent corruption.")
@Value.Immutable
@JsonIgnoreProperties(ignoreUnknown = true)
@JsonSerialize(as = ReuseDomain.class)
@JsonDeserialize(as = ReuseDomain.class)
interface ReuseDomainDef {
  String DEFAULT_NAME = "default";

  /** The domain's name, a DNS-1123 label; {@code default} when omitted. */
  @JsonPropertyDescription(
      "The domain's name, a DNS-1123 label; \"default\" when omitted. Immutable. Claimed per"
          + " backend: a second Binding naming it on any pool of the same backend is refused.")
  @Value.Default
  @Default(DEFAULT_NAME)
  @Pattern(Dns.LABEL_PATTERN)
  @Size(max = Dns.LABEL_MAX_LENGTH)
  @ValidationRule(
      value = "self == oldSelf",
      message = "name is immutable: the domain's blocks live under it",
      reason = "FieldValueForbidden")
  default String name() {
    return DEFAULT_NAME;
  }

  /** Tokens per cache block; greater than 0. */
  @JsonPropertyDescription(
      "Tokens per cache block. Required, greater than 0, and immutable: blocks were written at"
          + " this size.")
  @Required
  @Min(1)
  @ValidationRule(
      value = "self == oldSelf",
      message =
          "blockSize is immutable: blocks were written at this size, and reading them back at a"
              + " new one is silent corruption",
      reason = "FieldValueForbidden")
  int blockSize();

  /** The engine's own spelling of the element type; see {@link Dtype}. */
  @JsonPropertyDescription(
      "The KV-cache element type every attached engine runs with, passed as --kv-cache-dtype"
          + " exactly as spelled (for example bfloat16). Required, lowercase, at most 32"
          + " characters, immutable; auto is refused on a new Binding while the Setting"
          + " model-deployment-kv-cache-dtype-owned is on.")
  @Required
  @Size(min = 1, max = Dtype.MAX_LENGTH)
  @ValidationRule(
      value = "self == self.lowerAscii()",
      message = "dtype must be lowercase: two spellings of one type would read as two types")
  @ValidationRule(
      value = "self == oldSelf",
      message =
          "dtype is immutable: blocks were written as this type, and reading them back as another"
              + " one is silent corruption",
      reason = "FieldValueForbidden")
  String dtype();

  /** Adds every rule this domain breaks, with paths under {@code field}. */
  default void validate(String field, Problems problems) {
    if (!Dns.isLabel(name())) {
      problems.invalid(
          field + ".name",
          name(),
          "a reuse domain is named like a Kubernetes object: " + Dns.labelRule());
    }
    if (blockSize() <= 0) {
      problems.invalid(
          field + ".blockSize",
          Integer.toString(blockSize()),
          "must be greater than 0: it is the number of tokens one cache block holds");
    }
    Dtype.check(dtype(), field + ".dtype", problems);
  }
}
