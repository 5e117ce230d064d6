package ai.gpustack.kvcache.admission;

import ai.gpustack.kvcache.api.Problems;
import ai.gpustack.kvcache.resources.KvCacheSerialization;
import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;

/** Reads raw objects as their kinds, turning a failure into problems at the field that failed. */
final class ObjectReader {
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
      throw new Unreadable(Problems.ofReadFailure(e));
    }
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
