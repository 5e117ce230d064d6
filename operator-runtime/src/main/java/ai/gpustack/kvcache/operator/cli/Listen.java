package ai.gpustack.kvcache.operator.cli;

import java.net.InetSocketAddress;

/** Reads {@code host:port} listen addresses. */
final class Listen {
  private Listen() {}

  static InetSocketAddress parse(String value) {
    int colon = value.lastIndexOf(':');
    if (colon < 0) {
      throw new IllegalArgumentException("--listen takes host:port, not " + value);
    }
    String host = value.substring(0, colon).replace("[", "").replace("]", "");
    return new InetSocketAddress(
        host.isEmpty() ? "0.0.0.0" : host, Integer.parseInt(value.substring(colon + 1)));
  }
}
