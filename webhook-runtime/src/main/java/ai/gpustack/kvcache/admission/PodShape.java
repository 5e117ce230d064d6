package ai.gpustack.kvcache.admission;

import com.fasterxml.jackson.annotation.JsonIgnoreProperties;
import java.util.List;
import java.util.Map;

/**
 * The parts of a Pod injection reads, bound straight from the request's JSON: far cheaper than the
 * full Pod model on the hot path, and still typed, so a mistyped field is refused naming it.
 */
@JsonIgnoreProperties(ignoreUnknown = true)
record PodShape(Metadata metadata, Spec spec) {
  @JsonIgnoreProperties(ignoreUnknown = true)
  record Metadata(
      String name, String namespace, Map<String, String> labels, Map<String, String> annotations) {}

  @JsonIgnoreProperties(ignoreUnknown = true)
  record Spec(List<Container> containers, List<Container> initContainers, List<Named> volumes) {}

  @JsonIgnoreProperties(ignoreUnknown = true)
  record Container(String name, List<String> command, List<String> args, List<Named> env) {}

  /** Anything with a name: an env var, a volume. */
  @JsonIgnoreProperties(ignoreUnknown = true)
  record Named(String name) {}
}
