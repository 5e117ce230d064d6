package ai.gpustack.kvcache.admission;

import ai.gpustack.kvcache.api.Problems;
import ai.gpustack.kvcache.resources.KvCacheSerialization;
import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.JsonMappingException;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/** Reads raw objects as their kinds, turning a failure into problems at the field that failed. */
final class ObjectReader {
  private static final Pattern MISSING =
      Pattern.compile("Cannot build \\w+, some of required attributes are not set \\[([^\\]]*)\\]");

  private final ObjectMapper mapper;

  /** Reads with {@code mapper}, configured by {@link KvCacheSerialization#create(ObjectMapper)}. */
  ObjectReader(ObjectMapper mapper) {
    this.mapper = mapper;
  }

  /** {@code node} as {@code type}; throws {@link Unreadable} naming the failing field. */
  <T> T read(JsonNode node, Class<T> type) {
    if (node == null || node.isNull() || node.isMissingNode()) {
      throw new Unreadable(Problems.create().required("object", "the request carries no object"));
    }
    try {
      return mapper.treeToValue(node, type);
    } catch (JsonProcessingException | IllegalArgumentException e) {
      throw new Unreadable(problems(e));
    }
  }

  private static Problems problems(Throwable e) {
    Throwable cause = e;
    JsonMappingException mapping = null;
    while (cause != null) {
      if (cause instanceof JsonMappingException m) {
        mapping = m;
      }
      cause = cause.getCause() == cause ? null : cause.getCause();
    }
    Problems problems = Problems.create();
    if (mapping == null) {
      return problems.invalid("object", null, e.getMessage());
    }
    StringBuilder path = new StringBuilder();
    for (JsonMappingException.Reference ref : mapping.getPath()) {
      if (ref.getFieldName() != null) {
        path.append(path.length() == 0 ? "" : ".").append(ref.getFieldName());
      } else if (ref.getIndex() >= 0) {
        path.append('[').append(ref.getIndex()).append(']');
      }
    }
    String field = path.length() == 0 ? "object" : path.toString();
    Matcher missing = MISSING.matcher(String.valueOf(mapping.getOriginalMessage()));
    if (missing.find()) {
      for (String attribute : missing.group(1).split(",\\s*")) {
        problems.required(field + "." + attribute, "");
      }
      return problems;
    }
    String message = String.valueOf(mapping.getOriginalMessage()).lines().findFirst().orElse("");
    return problems.invalid(field, null, message);
  }

  /** The object does not read as its kind. */
  static final class Unreadable extends RuntimeException {
    private static final long serialVersionUID = 1L;
    private final transient Problems problems;

    Unreadable(Problems problems) {
      super(problems.toString(), null, false, false);
      this.problems = problems;
    }

    Problems problems() {
      return problems;
    }
  }
}
