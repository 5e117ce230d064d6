package ai.gpustack.kvcache.spi;

import java.util.List;
import java.util.Optional;

/**
 * Where a running engine reports the KV-cache dtype it runs, for a range of its versions: an HTTP
 * path on its serving port, and how to read the spelling off the answer. Implementations are pure
 * and thread-safe; an answer that is not the engine's (garbage, another release's shape, an error
 * page) reads as nothing, never as an exception.
 */
public interface DtypeReport extends Versioned {
  /** The path on the engine's serving port: {@code /metrics}, {@code /get_server_info}. */
  String path();

  /** The spelling {@code body} reports; empty when it reports none. */
  Optional<String> read(String body);

  /**
   * A body shaped like the engine's own answer while it runs {@code spelling}: what the sandbox's
   * stand-in kubelet serves, and what the contract kit reads back.
   */
  String sample(String spelling);

  /** Answers captured from the real engine, each with what it reports and where it came from. */
  List<ReportFixture> fixtures();

  /**
   * One captured answer: a classpath resource next to the report's class, the spelling it reports
   * (empty when it reports none), and its source (release, command, where captured).
   */
  record ReportFixture(String resource, Optional<String> reports, String source) {}
}
